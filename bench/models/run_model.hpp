// One model of the benchmark on either backend: its inputs written (model_io.hpp), its plan
// prepared once for its weights, run, its output written, its median time and each step's
// (ein::profile), and for a cuda plan the median time of the run captured into a CUDA graph.
// `Memory` says where buffers live and how runs are timed (host.cpp, cuda.cpp).
#pragma once

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/statistics.hpp"
#include "ein/front.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/profile.hpp"
#include "model_io.hpp"

namespace ein::bench::models {

/// Memory: `buffer upload(const std::vector<std::byte>&)`, `buffer output(std::size_t bytes)`,
/// `void* data(buffer&)`, `std::vector<std::byte> download(const buffer&)`, `stream()`, and
/// `double median_ms(F)` over repeated calls of F; for cuda plans also `poison(buffer&)` (NaN in
/// every element). Buffers hold each tensor's element type.
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
  const std::vector<float> ran = stored_values(memory.download(y), out_type);
  write_output(p, m, ran, work, entry);
  entry["ein_ms"] = memory.median_ms([&] { prepared.run(bound, memory.stream()); });
  using plan = runtime::generated_plan<std::remove_cvref_t<decltype(net)>>;
  entry["plan"] = std::string(plan::description);
  entry["ein_tolerance"] = plan::tolerance;
  std::printf("%-11s ein %10.4f ms", m.name.c_str(), entry["ein_ms"].get<double>());
  if constexpr (plan::target == runtime::backend::cuda) {
    // The same run captured into a CUDA graph (one launch a run, as torch.compile's
    // "reduce-overhead" mode runs a model): replayed into a poisoned output, it must equal the run.
    auto graph = prepared.capture(bound);
    memory.poison(y);
    graph.replay(memory.stream());
    const double err = max_rel_error(stored_values(memory.download(y), out_type), ran);  // NaN: not written
    if (!(err <= plan::tolerance))
      throw std::runtime_error(m.name + ": the CUDA graph's output differs from the run's by " + std::to_string(err));
    entry["ein_graph_max_rel_err_vs_run"] = err;
    entry["ein_graph_ms"] = memory.median_ms([&] { graph.replay(memory.stream()); });
    std::printf(" (CUDA graph %10.4f ms)", entry["ein_graph_ms"].get<double>());
  }
  std::printf("\n");
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
