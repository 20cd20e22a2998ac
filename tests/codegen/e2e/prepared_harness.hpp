// Runs a program object through ein::prepare and several runs of the prepared plan on random
// inputs, and compares every output with the interpreter: the differential check of prepared
// plans (generated or generic).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "codegen/e2e/harness.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/dispatch/prepare.hpp"

namespace ein_test {

/// ein::prepare(object, weights) once, then `runs` runs of the prepared plan on different random
/// inputs, each equal to the interpreter with the weights given to prepare (within `tolerance`,
/// relative to each output's largest magnitude). Between prepare and the runs, the weight
/// buffers bound to prepare are overwritten with other non-zero values: a prepared plan must
/// not read them again.
template <class Object>
void check_prepared_against_interpreter(const Object& object, std::uint64_t seed, double tolerance,
                                        int runs = 3) {
  ein::ir::program p = ein::reify(object);
  CAPTURE(p.name);
  CAPTURE(seed);
  const auto weights_env = ein::eval::random_inputs(p, seed);
  host_buffers weights;
  for (auto& t : p.tensors)
    if (t.role == ein::ir::tensor_role::weight) weights.bind_input(t.name, t.type, weights_env.at(t.name));
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  for (auto t : {ein::ir::dtype::f32, ein::ir::dtype::f64, ein::ir::dtype::f16, ein::ir::dtype::bf16})
    weights.of_type(t, [](auto& store) {
      using T = typename std::remove_reference_t<decltype(store)>::value_type::value_type;
      for (auto& v : store)
        for (auto& x : v) x = static_cast<T>(-3.0f * static_cast<float>(x) + 0.25f);
    });
  for (int run = 0; run < runs; ++run) {
    CAPTURE(run);
    auto env = ein::eval::random_inputs(p, seed + 1000 * static_cast<std::uint64_t>(run + 1));
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) env[t.name] = weights_env.at(t.name);
    auto ref = ein::eval::evaluate(p, env);
    host_buffers buffers;
    for (auto& t : p.tensors)
      if (t.role != ein::ir::tensor_role::weight) buffers.bind_input(t.name, t.type, env.at(t.name));
    std::vector<std::pair<std::string, ein::ir::dtype>> outputs;
    for (auto& o : p.outputs) {
      auto* d = p.find_definition(o);
      REQUIRE(d);
      outputs.push_back({o, d->type});
      buffers.bind_output(o, d->type, ref.at(o).data.size());
    }
    prepared.run(ein::runtime::bindings(buffers.items));
    // Outputs were bound after the inputs, in order: their buffers are the last ones of their type.
    std::map<ein::ir::dtype, std::size_t> later;
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
      CAPTURE(it->first);
      double err = buffers.of_type(it->second, [&](auto& store) {
        auto& values = store[store.size() - ++later[it->second]];
        return ein::eval::max_rel_error(std::span(std::as_const(values)), ref.at(it->first));
      });
      CHECK(err <= tolerance);
    }
  }
}

/// ein::prepare(object, weights), then a run captured once (prepared.capture(b)) from bindings
/// whose names are gone after the call: the capture runs nothing, and each replay equals the
/// interpreter on the values the bound input buffers hold then (overwritten in place between
/// replays).
template <class Object>
void check_captured_against_interpreter(const Object& object, std::uint64_t seed, double tolerance) {
  ein::ir::program p = ein::reify(object);
  CAPTURE(p.name);
  CAPTURE(seed);
  const auto weights_env = ein::eval::random_inputs(p, seed);
  auto with_weights = [&](std::uint64_t inputs_seed) {
    auto env = ein::eval::random_inputs(p, inputs_seed);
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) env[t.name] = weights_env.at(t.name);
    return env;
  };
  host_buffers weights;
  for (auto& t : p.tensors)
    if (t.role == ein::ir::tensor_role::weight) weights.bind_input(t.name, t.type, weights_env.at(t.name));
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  const auto first_env = with_weights(seed + 1);
  const auto first = ein::eval::evaluate(p, first_env);
  host_buffers buffers;
  std::vector<std::string> names;  // what the bindings name, overwritten after the capture
  std::vector<const ein::ir::tensor*> inputs;
  for (auto& t : p.tensors)
    if (t.role != ein::ir::tensor_role::weight) names.push_back(t.name), inputs.push_back(&t);
  for (auto& o : p.outputs) names.push_back(o);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    buffers.bind_input(names[i], inputs[i]->type, first_env.at(inputs[i]->name));
  std::vector<std::pair<bool, std::size_t>> outputs;  // (f32, index in buffers.f32 or .f64)
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    auto* d = p.find_definition(p.outputs[i]);
    REQUIRE(d);
    bool f32 = d->type == ein::ir::dtype::f32;
    outputs.push_back({f32, f32 ? buffers.f32.size() : buffers.f64.size()});
    buffers.bind_output(names[inputs.size() + i], d->type, first.at(p.outputs[i]).data.size());
  }
  auto captured = prepared.capture(ein::runtime::bindings(buffers.items));
  for (auto& name : names) name.assign(name.size(), '?');
  for (auto [f32, at] : outputs)  // a capture runs nothing
    CHECK((f32 ? buffers.f32[at][0] : buffers.f64[at][0]) == -7.0);
  for (std::uint64_t replay = 0; replay < 2; ++replay) {
    CAPTURE(replay);
    auto now = with_weights(seed + 10 + replay);
    std::size_t f32_at = 0, f64_at = 0;
    for (auto* t : inputs) {
      auto& v = now.at(t->name).data;
      if (t->type == ein::ir::dtype::f32)
        std::copy(v.begin(), v.end(), buffers.f32[f32_at++].begin());
      else
        std::copy(v.begin(), v.end(), buffers.f64[f64_at++].begin());
    }
    auto ref = ein::eval::evaluate(p, now);
    captured.replay();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      CAPTURE(p.outputs[i]);
      auto [f32, at] = outputs[i];
      double err = f32 ? ein::eval::max_rel_error(std::span<const float>(buffers.f32[at]), ref.at(p.outputs[i]))
                       : ein::eval::max_rel_error(std::span<const double>(buffers.f64[at]), ref.at(p.outputs[i]));
      CHECK(err <= tolerance);
    }
  }
}

}  // namespace ein_test
