// One model of the benchmark on either backend: its inputs written (model_io.hpp), its plan
// prepared once for its weights, run, its output written, its median time and each step's
// (ein::profile). `Memory` says where buffers live and how runs are timed (host.cpp,
// cuda.cpp).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "ein/front.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/profile.hpp"
#include "model_io.hpp"

namespace ein::bench::models {

/// Memory: `buffer upload(const std::vector<std::byte>&)`, `buffer output(std::size_t bytes)`,
/// `void* data(buffer&)`, `std::vector<std::byte> download(const buffer&)`, `stream()`, and
/// `double median_ms(F)` over repeated calls of F. Buffers hold each tensor's element type.
template <class Model, class Memory>
json run_model(const model_case& m, const std::string& work, Memory& memory, json config = json::object()) {
  const auto& net = Model::net;
  ir::program p = ein::reify(net, m.name);
  json entry = {{"name", m.name}, {"config", std::move(config)}, {"definitions", definition_shapes(p)}};
  auto values = write_inputs(p, m, work, entry);
  std::vector<typename Memory::buffer> buffers;
  buffers.reserve(p.tensors.size() + 1);
  std::vector<runtime::binding> weights, run;
  for (auto& t : p.tensors) {
    auto& b = buffers.emplace_back(memory.upload(stored_bytes(values.at(t.name), t.type)));
    (t.role == ir::tensor_role::weight ? weights : run).push_back(typed_binding(t.name, t.type, memory.data(b), false));
  }
  const std::string& out = p.outputs.at(0);
  const ir::dtype out_type = p.find_definition(out)->type;
  const auto out_count = element_count(p.find_definition(out)->value->shape());
  auto& y = buffers.emplace_back(memory.output(out_count * static_cast<std::size_t>(ir::element_bytes(out_type))));
  run.push_back(typed_binding(out, out_type, memory.data(y), true));

  auto prepared = ein::prepare(net, runtime::bindings(weights), memory.stream());
  runtime::bindings bound(run);
  prepared.run(bound, memory.stream());
  write_output(p, m, stored_values(memory.download(y), out_type), work, entry);
  entry["ein_ms"] = memory.median_ms([&] { prepared.run(bound, memory.stream()); });
  using plan = runtime::generated_plan<std::remove_cvref_t<decltype(net)>>;
  entry["plan"] = std::string(plan::description);
  entry["ein_tolerance"] = plan::tolerance;
  std::printf("%-11s ein %10.4f ms\n", m.name.c_str(), entry["ein_ms"].get<double>());
  // Where a run's time goes (ein::profile; a cuda plan's needs ein/profile_cuda.hpp, which cuda.cpp
  // includes). The plan ran above: no warm-up, and one round will do for Longformer's seconds-long runs.
  const profile_report profiled =
      ein::profile(prepared, bound, {.warmup = 0, .min_runs = 1, .max_runs = 20, .stream = memory.stream()});
  json steps = json::array();
  for (auto& s : profiled.steps)
    steps.push_back({{"step", s.index}, {"what", s.description}, {"median_ms", s.median_ms}});
  entry["ein_steps"] = std::move(steps);
  std::printf("%s", profiled.table({.rows = 3}).c_str());
  std::fflush(stdout);
  return entry;
}

}  // namespace ein::bench::models
