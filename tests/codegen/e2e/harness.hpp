// Runs a program object through ein::run on random inputs and compares every output with the
// interpreter: the differential check shared by the generated-code and runtime tests.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <span>
#include <string>
#include <vector>

#include "codegen/e2e/host_buffers.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/dispatch/run.hpp"

namespace ein_test {

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
      ein::runtime::generated_plan<Object>::run_host(b);
    else
      ein::run(object, b);
  } else {
    ein::run(object, b);
  }
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
