// Stage two of the 16-bit test through ein_generate: the generated host plans of a network in
// ein::half and one in ein::bfloat16 equal the interpreter (which rounds what each 16-bit
// definition stores) on random inputs, within the plan's tolerance (docs/decisions/0028).
#define EIN_STRICT  // the plans must come from the generated headers
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/e2e/harness.hpp"
#include "codegen/front/half_model.hpp"
#include "ein_generated/codegen_bfloat16.hpp"
#include "ein_generated/codegen_half.hpp"
#include "ein_generated/codegen_half_written.hpp"

namespace {

template <class Object>
using plan_of = ein::runtime::generated_plan<std::remove_cvref_t<Object>>;

// ein::prepare binds the weights once; its run equals the interpreter.
template <class Object>
void check_prepared(const Object& object, std::uint64_t seed, double tolerance) {
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, seed);
  auto want = ein::eval::evaluate(p, env);
  ein_test::host_buffers weights, run;
  for (auto& t : p.tensors)
    (t.role == ein::ir::tensor_role::weight ? weights : run).bind_input(t.name, t.type, env.at(t.name));
  for (auto& o : p.outputs) run.bind_output(o, p.find_definition(o)->type, want.at(o).data.size());
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  prepared.run(ein::runtime::bindings(run.items));
  std::map<ein::ir::dtype, std::size_t> later;  // outputs are the last buffers of their type
  for (auto it = p.outputs.rbegin(); it != p.outputs.rend(); ++it) {
    CAPTURE(*it);
    const auto type = p.find_definition(*it)->type;
    double err = run.of_type(type, [&](auto& store) {
      return ein::eval::max_rel_error(std::span(std::as_const(store[store.size() - ++later[type]])), want.at(*it));
    });
    CHECK(err <= tolerance);
  }
}

// The plan's run, its run_host() and its prepared run equal the interpreter on two seeds.
template <class Object>
void check_plan(const Object& object) {
  using plan = plan_of<Object>;
  static_assert(ein::runtime::has_plan_v<Object>);
  CAPTURE(plan::description);
  // A few units in the last place of the output type, far below 1.
  CHECK(plan::tolerance > 0x1p-11);
  CHECK(plan::tolerance < 0.1);
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_against_interpreter(object, seed, plan::tolerance);
    ein_test::check_against_interpreter(object, seed, plan::tolerance, true);
    check_prepared(object, seed, plan::tolerance);
  }
}

}  // namespace

TEST_CASE("the generated host plan of a network in half equals the interpreter") {
  check_plan(codegen_half::f16::net);
}

TEST_CASE("the generated host plan of a network in bfloat16 equals the interpreter") {
  check_plan(codegen_half::bf16::net);
}

TEST_CASE("the half network as written: its product and convolution are eOperators") {
  using plan = plan_of<decltype(codegen_half::written::net)>;
  CAPTURE(plan::description);
  CHECK(std::string_view(plan::description).find("library") == std::string_view::npos);
  for (std::uint64_t seed : {1, 2}) ein_test::check_against_interpreter(codegen_half::written::net, seed, plan::tolerance);
}

namespace {

// The names a library call of a plan's description reads and writes: `t = library op(a=x+0, b=y+0) ...`
// gives t, x, y.
std::vector<std::string> library_operands(std::string_view line) {
  std::vector<std::string> names{std::string(line.substr(0, line.find(" = ")))};
  auto open = line.find('('), close = line.find(')');
  for (auto at = line.find('=', open); at < close; at = line.find('=', at + 1))
    names.emplace_back(line.substr(at + 1, line.find('+', at) - at - 1));
  return names;
}

}  // namespace

TEST_CASE("16-bit plans keep their types, and call libraries on float values or oneDNN on bfloat16 ones") {
  auto p16 = ein::reify(codegen_half::f16::net), pb16 = ein::reify(codegen_half::bf16::net);
  for (auto& d : p16.definitions) CHECK(d.type == ein::ir::dtype::f16);
  CHECK(pb16.find_definition("fc_mm")->type == ein::ir::dtype::f32);
  CHECK(pb16.find_definition("fc")->type == ein::ir::dtype::bf16);
  CHECK(pb16.find_definition("block")->type == ein::ir::dtype::bf16);
  // A library call's operands are 16-bit tensors or definitions of the program only where the
  // call is a bfloat16 convolution, which oneDNN runs on a CPU with bfloat16 kernels and which
  // then reads and writes bfloat16 only; elsewhere the search may relayout them into float
  // temporaries first, and call the library on those.
  auto check = [](const ein::ir::program& p, std::string_view description) {
    CAPTURE(description);
    CHECK(description.find("eOperator") != std::string_view::npos);
    for (std::size_t at = 0; (at = description.find("\n  ", at)) != std::string_view::npos;) {
      at += 3;
      auto line = description.substr(at, description.find('\n', at) - at);
      if (line.find(" = library ") == std::string_view::npos) continue;
      const bool bfloat16_convolution =
          line.find(" = library conv") != std::string_view::npos && line.find("[bfloat16]") != std::string_view::npos;
      for (auto& name : library_operands(line)) {
        CAPTURE(name);
        auto as_called = [&](ein::ir::dtype t) {
          return bfloat16_convolution ? t == ein::ir::dtype::bf16 : !ein::ir::is_16bit(t);
        };
        for (auto& t : p.tensors)
          if (t.name == name) CHECK(as_called(t.type));
        if (auto* d = p.find_definition(name)) CHECK(as_called(d->type));
      }
    }
  };
  check(p16, plan_of<decltype(codegen_half::f16::net)>::description);
  check(pb16, plan_of<decltype(codegen_half::bf16::net)>::description);
  // The description names the type of each step that stores another type than float.
  const std::string_view f16_text = plan_of<decltype(codegen_half::f16::net)>::description,
                         bf16_text = plan_of<decltype(codegen_half::bf16::net)>::description;
  CHECK(f16_text.find("[output] [half]\n") != std::string_view::npos);
  CHECK(bf16_text.find("[output] [bfloat16]\n") != std::string_view::npos);
  CHECK(bf16_text.find("[half]") == std::string_view::npos);
  // A half buffer bound where the plan reads bfloat16 is refused, naming the tensor.
  std::vector<ein::half> x(8 * 8 * 16), k(3 * 3 * 16 * 16), a(24 * 40), w(40 * 32), block(8 * 8 * 16), fc(24 * 32);
  CHECK_THROWS_WITH_AS(ein::run(codegen_half::bf16::net,
                                {{"X", x}, {"K", k}, {"A", a}, {"W", w}, {"block", block}, {"fc", fc}}),
                       doctest::Contains("tensor `X` holds ein::bfloat16 but a buffer of ein::half is bound to it"),
                       ein::user_error);
}
