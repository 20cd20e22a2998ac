// Runs a program object through ein::run on random inputs and compares every output with the
// interpreter: the differential check shared by the generated-code and runtime tests.
#pragma once

#include <doctest/doctest.h>

#include <deque>
#include <span>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/dispatch/run.hpp"

namespace ein_test {

/// Host buffers for every tensor of a program, filled from an interpreter environment.
struct host_buffers {
  std::deque<std::vector<float>> f32;
  std::deque<std::vector<double>> f64;
  std::vector<ein::runtime::binding> items;

  void bind_input(const std::string& name, ein::ir::dtype t, const ein::eval::dense& v) {
    if (t == ein::ir::dtype::f32)
      items.emplace_back(name, std::as_const(f32.emplace_back(v.data.begin(), v.data.end())));
    else
      items.emplace_back(name, std::as_const(f64.emplace_back(v.data)));
  }
  // The output's span, to compare after the run.
  void bind_output(const std::string& name, ein::ir::dtype t, std::size_t count) {
    if (t == ein::ir::dtype::f32)
      items.emplace_back(name, f32.emplace_back(count, -7.0f));
    else
      items.emplace_back(name, f64.emplace_back(count, -7.0));
  }
};

/// ein::run(object, ...) equals `reference(env)` (the outputs by name) on random inputs `env`
/// within `tolerance` (relative to each output's largest magnitude). `host_loops` runs the
/// plan's run_host() instead.
template <class Object, class Reference>
void check_against(const Object& object, std::uint64_t seed, double tolerance, Reference&& reference,
                   bool host_loops = false) {
  ein::ir::program p = ein::reify(object);
  CAPTURE(p.name);
  CAPTURE(seed);
  auto env = ein::eval::random_inputs(p, seed);
  ein::eval::bindings ref = reference(env);
  host_buffers buffers;
  for (auto& t : p.tensors) buffers.bind_input(t.name, t.type, env.at(t.name));
  std::vector<std::pair<std::string, ein::ir::dtype>> outputs;
  for (auto& o : p.outputs) {
    auto* d = p.find_definition(o);
    REQUIRE(d);
    outputs.push_back({o, d->type});
    buffers.bind_output(o, d->type, ref.at(o).data.size());
  }
  ein::runtime::bindings b(buffers.items);
  if constexpr (ein::runtime::has_plan_v<Object>) {
    if (host_loops)
      ein::runtime::plan<Object>::run_host(b);
    else
      ein::run(object, b);
  } else {
    ein::run(object, b);
  }
  // Outputs were bound after the inputs, in order: their buffers are the last ones.
  std::size_t f32_at = buffers.f32.size(), f64_at = buffers.f64.size();
  for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
    CAPTURE(it->first);
    double err = it->second == ein::ir::dtype::f32
                     ? ein::eval::max_rel_error(std::span<const float>(buffers.f32[--f32_at]), ref.at(it->first))
                     : ein::eval::max_rel_error(std::span<const double>(buffers.f64[--f64_at]), ref.at(it->first));
    CHECK(err <= tolerance);
  }
}

/// ein::run(object, ...) equals the interpreter on random inputs within `tolerance` (relative
/// to each output's largest magnitude). `host_loops` runs the plan's run_host() instead.
template <class Object>
void check_against_interpreter(const Object& object, std::uint64_t seed, double tolerance,
                               bool host_loops = false) {
  auto p = ein::reify(object);
  check_against(object, seed, tolerance, [&](const ein::eval::bindings& env) { return ein::eval::evaluate(p, env); },
                host_loops);
}

}  // namespace ein_test
