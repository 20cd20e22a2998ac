// The gradient plans of grad_layers::net that ein_generate wrote (GRADIENT *, as written: its
// forward values stored, and all recomputed) against the interpreter, which evaluates
// the same gradient program in double, on random inputs, weights and seeds (variances positive).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "against_interpreter.hpp"
#include "ein/grad/gradient.hpp"
#include "ein_generated/grad_layers.hpp"
#include "ein_generated/grad_layers_recompute.hpp"
#include "layers.hpp"

namespace {

template <class Plan>
void check(const Plan& net) {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(net)>>;
  INFO(plan::description);
  ein::ir::program p = ein::reify(grad_layers::net, "layers");
  std::vector<std::string> targets;
  for (auto& t : p.tensors) targets.push_back(t.name);
  auto g = ein::grad::gradient(p, targets).program;
  ein::eval::bindings env = ein::eval::random_inputs(g, 5);
  for (auto& x : env["v2"].data) x = std::abs(x) + 0.1;
  grad_test::check_against_interpreter(net, g, env, plan::tolerance);
}

}  // namespace

TEST_CASE("the gradient plan of every kind of layer equals the interpreter's gradient program") {
  check(ein_generated::grad_layers::net);
}

TEST_CASE("the same with every forward value recomputed by the backward") {
  check(ein_generated::grad_layers_recompute::net);
}
