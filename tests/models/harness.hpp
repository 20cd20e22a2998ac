// The differential check of a model's generated plan: ein::run and a prepared run on random
// inputs of both signs (variances made positive) against the interpreter.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/dispatch/run.hpp"

namespace models_test {

/// Random inputs and weights for `p` from `seed`; the tensors named in `positive` (batch
/// normalization variances) get |v| + 0.1, as a variance is.
inline ein::eval::bindings model_inputs(const ein::ir::program& p, std::uint64_t seed,
                                        const std::vector<std::string>& positive) {
  auto env = ein::eval::random_inputs(p, seed);
  for (const std::string& name : positive)
    for (double& v : env.at(name).data) v = (v < 0 ? -v : v) + 0.1;
  return env;
}

/// The names of p's tensors that end with `suffix` (ResNet's conv_bn variances end with "_v").
inline std::vector<std::string> names_ending(const ein::ir::program& p, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& t : p.tensors)
    if (t.name.ends_with(suffix)) names.push_back(t.name);
  return names;
}

/// Float buffers bound by name: inputs from an environment, outputs filled with -7.
struct buffers {
  std::deque<std::vector<float>> data;
  std::vector<ein::runtime::binding> items;
  void input(const std::string& name, const ein::eval::dense& v) {
    items.emplace_back(name, std::as_const(data.emplace_back(v.data.begin(), v.data.end())));
  }
  std::span<const float> output(const std::string& name, std::size_t count) {
    auto& out = data.emplace_back(count, -7.0f);
    items.emplace_back(name, std::span<float>(out));
    return out;
  }
};

/// The model's one output by ein::run and by ein::prepare then run equals the interpreter
/// within `tolerance` (relative to its largest magnitude).
template <class Object>
void check_model(const Object& object, std::uint64_t seed, double tolerance,
                 const std::vector<std::string>& positive) {
  ein::ir::program p = ein::reify(object);
  CAPTURE(seed);
  REQUIRE(p.outputs.size() == 1);
  const std::string& out = p.outputs[0];
  auto env = model_inputs(p, seed, positive);
  auto ref = ein::eval::evaluate(p, env).at(out);
  {
    buffers b;
    for (auto& t : p.tensors) b.input(t.name, env.at(t.name));
    auto got = b.output(out, ref.data.size());
    ein::run(object, ein::runtime::bindings(b.items));
    CHECK(ein::eval::max_rel_error(got, ref) < tolerance);
  }
  buffers weights, run;
  for (auto& t : p.tensors) (t.role == ein::ir::tensor_role::weight ? weights : run).input(t.name, env.at(t.name));
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  auto got = run.output(out, ref.data.size());
  prepared.run(ein::runtime::bindings(run.items));
  CHECK(ein::eval::max_rel_error(got, ref) < tolerance);
}

}  // namespace models_test
