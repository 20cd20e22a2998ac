// The gradient plans of grad_layers::net that ein_generate wrote (GRADIENT *, as written: its
// forward values stored, and all recomputed) against the interpreter, which evaluates
// the same gradient program in double, on random inputs, weights and seeds (variances positive).
#include <doctest/doctest.h>

#include <map>
#include <span>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/random.hpp"
#include "ein/grad/gradient.hpp"
#include "ein_generated/grad_layers.hpp"
#include "ein_generated/grad_layers_recompute.hpp"
#include "layers.hpp"

namespace {

template <class Plan>
void check(const Plan& net) {
  using plan = ein::runtime::plan<std::remove_cvref_t<decltype(net)>>;
  INFO(plan::description);
  ein::ir::program p = ein::reify(grad_layers::net, "layers");
  std::vector<std::string> targets;
  for (auto& t : p.tensors) targets.push_back(t.name);
  auto g = ein::grad::gradient(p, targets).program;
  ein::eval::bindings env = ein::eval::random_inputs(g, 5);
  for (auto& x : env["v2"].data) x = std::abs(x) + 0.1;
  std::map<std::string, std::vector<float>> values;
  std::vector<ein::runtime::binding> bindings;
  for (auto& [name, d] : env) {
    auto& v = values[name] = std::vector<float>(d.data.begin(), d.data.end());
    bindings.emplace_back(name, static_cast<const float*>(v.data()));
  }
  for (auto& name : g.outputs) {
    std::int64_t n = 1;
    for (auto e : g.find_definition(name)->value->shape()) n *= e;
    auto& v = values[name] = std::vector<float>(static_cast<std::size_t>(n), -7.0f);
    bindings.emplace_back(values.find(name)->first, v.data());
  }
  ein::run(net, ein::runtime::bindings(bindings));
  auto want = ein::eval::evaluate(g, env);
  for (auto& name : g.outputs) {
    CAPTURE(name);
    CHECK(ein::eval::max_rel_error(std::span<const float>(values.at(name)), want.at(name)) <= plan::tolerance);
  }
}

}  // namespace

TEST_CASE("the gradient plan of every kind of layer equals the interpreter's gradient program") {
  check(ein_generated::grad_layers::net);
}

TEST_CASE("the same with every forward value recomputed by the backward") {
  check(ein_generated::grad_layers_recompute::net);
}
