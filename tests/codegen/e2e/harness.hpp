// Runs a program object through ein::run on random inputs and compares every output with the
// interpreter: the differential check shared by the generated-code and runtime tests.
#pragma once

#include <doctest/doctest.h>

#include <deque>
#include <map>
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
  std::deque<std::vector<ein::half>> f16;
  std::deque<std::vector<ein::bfloat16>> bf16;
  std::vector<ein::runtime::binding> items;

  // f(the buffers of element type t).
  template <class F>
  decltype(auto) of_type(ein::ir::dtype t, F&& f) {
    switch (t) {
      case ein::ir::dtype::f32: return f(f32);
      case ein::ir::dtype::f64: return f(f64);
      case ein::ir::dtype::f16: return f(f16);
      case ein::ir::dtype::bf16: return f(bf16);
    }
    throw ein::internal_error("unknown element type");
  }
  void bind_input(const std::string& name, ein::ir::dtype t, const ein::eval::dense& v) {
    of_type(t, [&](auto& store) {
      using T = typename std::remove_reference_t<decltype(store)>::value_type::value_type;
      auto& values = store.emplace_back();
      for (double x : v.data) values.push_back(static_cast<T>(x));
      items.emplace_back(name, std::as_const(values));
    });
  }
  // The output's span, to compare after the run.
  void bind_output(const std::string& name, ein::ir::dtype t, std::size_t count) {
    of_type(t, [&](auto& store) {
      using T = typename std::remove_reference_t<decltype(store)>::value_type::value_type;
      items.emplace_back(name, store.emplace_back(count, static_cast<T>(-7.0f)));
    });
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
