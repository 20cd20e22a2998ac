// The host emitter: an eOperator as nested C++ loops over host memory.
#pragma once

#include <string>

#include "ein/codegen/eoperator.hpp"

namespace ein::codegen {

/// `inline void eop_<name>_host(reads..., target)`: loops over the traversal box in layout
/// order (the output is written sequentially), the summation loops inside, computing as
/// `accumulate` asks (compute_type, emit_element).
/// Example (float matmul): `for (i) for (j) { float acc = 0.0f; for (k) acc += A*B; t_C[o++] = acc; }`.
inline void emit_host_function(writer& w, const step& s, const layout& plan, accumulation accumulate) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  if (empty_box(sc.traversal)) {
    w.line("(void)" + out.variable + ";  // an empty box: nothing to compute");
    w.close();
    return;
  }
  iterator_box box = make_box(sc);
  w.line("std::int64_t o = 0;");
  for (auto& it : sc.traversal) {
    auto& v = box.variable.at(it.name);
    w.open("for (std::int64_t " + v + " = " + int_text(it.lo) + "; " + v + " < " +
           int_text(it.hi) + "; ++" + v + ")");
  }
  if (sc.traversal.empty()) w.open("");
  emit_element(w, sc, plan, box, out.variable + "[o++]", element_text(out.type), {compute_type(s, plan, accumulate)});
  for (std::size_t k = 0; k < std::max<std::size_t>(sc.traversal.size(), 1); ++k) w.close();
  w.close();
}

}  // namespace ein::codegen
