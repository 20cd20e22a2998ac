// ein::run: the user's entry point, dispatching at compile time to the generated plan of a
// program when its header is included, else to the generic (interpreted, host) path.
#pragma once

#include <type_traits>

#include "ein/front/reify.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/bindings.hpp"
#include "ein/dispatch/generic.hpp"
#include "ein/runtime/plan.hpp"

namespace ein {

using front::reify;

namespace runtime::detail {

// The IR of a program object, built once per program type (a program's type names it fully).
// Other program objects (the tests' hand-built IR) overload ein::reify before this header.
template <class Program>
const ir::program& reified(const Program& p) {
  static const ir::program prog = ein::reify(p);
  return prog;
}

}  // namespace runtime::detail

/// Runs `program` on the bound buffers: `ein::run(model::net, {{"A", a}, {"K", k}, {"conv", out}})`.
/// With the header that ein_generate wrote for `program` included, this calls its generated
/// plan (`ein::runtime::generated_plan<...>::run`, on `s` for the cuda backend; pointers then point to
/// device memory). Without it, the program is reified once and interpreted on host buffers.
/// Defining EIN_STRICT makes the missing header a compile error instead.
/// The second template parameter records the choice in the instantiation, so translation units
/// that include the generated header and ones that do not never share a definition.
/// @pre every input, weight and output is bound, with its element type; nothing else is bound.
template <class Program, bool Generated = runtime::has_plan_v<Program>>
void run(const Program& program, const runtime::bindings& b, runtime::stream s = nullptr) {
#if defined(EIN_STRICT)
  static_assert(Generated,
                "ein::run: no generated plan for this program (EIN_STRICT is defined): include "
                "the header that ein_generate wrote for it before calling ein::run");
#endif
  if constexpr (Generated)
    runtime::generated_plan<std::remove_cvref_t<Program>>::run(b, s);
  else
    runtime::run_generic(runtime::detail::reified(program), b);
}

}  // namespace ein
