// ResNet-18's training step on the host, ein's side: the gradient plan of models::resnet18<16>
// (batch 16, 224×224, every input and weight differentiated) chosen one of three ways — its
// forward values stored or recomputed as priced (`cost`), all stored, all recomputed — prepared
// once for its weights and run on random inputs and seeds, which it writes into the work folder
// with ein's gradients, the median time of `runs` runs after one and the process's peak resident
// memory (host_rounds.py runs one variant per process, interleaved with PyTorch).
//
//   bench_resnet18_training cost|store|recompute <work folder> [runs]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "ein_generated/bench_resnet18_gradient_cost.hpp"
#include "ein_generated/bench_resnet18_gradient_recompute.hpp"
#include "ein_generated/bench_resnet18_gradient_store.hpp"
#include "resnet18_batch16.hpp"
#include "run_gradient.hpp"

namespace {

using ein::bench::models::json;

template <class Plan>
json run(const Plan& plan, const std::string& variant, const std::string& work, int runs) {
  ein::ir::program p = ein::reify(bench_resnet18::net, "resnet18");
  json entry = {{"name", "resnet18"}, {"variant", variant}, {"definitions", ein::bench::models::definition_shapes(p)}};
  ein::bench::models::model_case m{"resnet18", [](const std::string& t) { return t.ends_with("_v"); }};
  auto values = ein::bench::models::write_inputs(p, m, work, entry);
  ein::bench::gradients::write_seeds(p, m.name, work, values, entry);
  auto all = ein::bench::gradients::gradient_bindings(p, values);
  std::vector<ein::runtime::binding> weights, rest;
  for (auto& b : all) {
    bool weight = false;
    for (auto& t : p.tensors) weight = weight || (t.name == b.name && t.role == ein::ir::tensor_role::weight);
    (weight ? weights : rest).push_back(b);
  }
  auto prepared = ein::prepare(plan, ein::runtime::bindings(weights));
  ein::runtime::bindings bound(rest);
  std::vector<double> ms;
  for (int k = 0; k <= runs; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    prepared.run(bound);
    if (k > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  for (auto& t : p.tensors) {
    std::string file = "resnet18." + variant + "." + ein::grad::gradient_name(t.name) + ".ein.bin";
    ein::bench::models::write_floats(work + "/" + file, values.at(ein::grad::gradient_name(t.name)));
    entry["gradients"].push_back({{"tensor", t.name}, {"shape", t.shape}, {"file", file}});
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  entry["ein_ms"] = ms;
  entry["ein_median_ms"] = ein::bench::median(ms);
  entry["peak_resident_bytes"] = static_cast<long long>(usage.ru_maxrss) * 1024;
  entry["prepared_bytes"] = prepared.storage_bytes();
  return entry;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: %s cost|store|recompute <work folder> [runs]\n", argv[0]);
    return 2;
  }
  const std::string variant = argv[1], work = argv[2];
  const int runs = argc == 4 ? std::stoi(argv[3]) : 3;
  try {
    json entry;
    if (variant == "cost") entry = run(ein_generated::bench_resnet18_gradient_cost::net, variant, work, runs);
    else if (variant == "store") entry = run(ein_generated::bench_resnet18_gradient_store::net, variant, work, runs);
    else if (variant == "recompute") entry = run(ein_generated::bench_resnet18_gradient_recompute::net, variant, work, runs);
    else throw std::runtime_error("unknown variant `" + variant + "` (cost, store or recompute)");
    entry["machine"] = {{"cpu", ein::bench::cpu_model()}, {"processors", ein::bench::processors()},
                        {"load_average", ein::bench::load_average()}};
    entry["when"] = ein::bench::utc_now();
    std::ofstream(work + "/resnet18." + variant + ".json") << entry.dump(2) << "\n";
    std::printf("resnet18 %s: median %.1f ms, peak resident %.0f MiB\n", variant.c_str(),
                entry["ein_median_ms"].get<double>(), entry["peak_resident_bytes"].get<double>() / (1 << 20));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_resnet18_training: %s\n", e.what());
    return 1;
  }
}
