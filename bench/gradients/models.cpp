// The seven models' gradients against PyTorch, ein's side: each model at the sizes of its tests
// (bench/models/small.hpp), its gradient plan with respect to every input and weight run once on
// random inputs, weights and seeds, which it writes into the work folder with ein's gradients and
// manifest.json; compare.py computes the same gradients with PyTorch's autograd (docs/gradients.md).
//
//   bench_gradients <work folder>
#include <cstdio>
#include <fstream>

#include "common/machine.hpp"
#include "ein_generated/bench_gradient_csrnet.hpp"
#include "ein_generated/bench_gradient_dcgan.hpp"
#include "ein_generated/bench_gradient_fsrcnn.hpp"
#include "ein_generated/bench_gradient_gcn.hpp"
#include "ein_generated/bench_gradient_infogan.hpp"
#include "ein_generated/bench_gradient_longformer.hpp"
#include "ein_generated/bench_gradient_resnet18.hpp"
#include "models/small.hpp"
#include "run_gradient.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <work folder>\n", argv[0]);
    return 2;
  }
  using namespace ein::bench;
  using bm = bench_models::sizes;
  auto variance = [](const std::string& t) { return (t.size() == 2 && t[0] == 'V') || t.ends_with("_v"); };
  try {
    nlohmann::json manifest = {{"machine", {{"cpu", cpu_model()}, {"processors", processors()}, {"load_average", load_average()}}},
                               {"when", utc_now()}};
    auto& all = manifest["models"];
    const std::string work = argv[1];
    all.push_back(gradients::run_gradient<bm::dcgan>({"dcgan", +variance}, ein_generated::bench_gradient_dcgan::net, work));
    all.push_back(gradients::run_gradient<bm::infogan>({"infogan"}, ein_generated::bench_gradient_infogan::net, work));
    all.push_back(gradients::run_gradient<bm::resnet18>({"resnet18", +variance}, ein_generated::bench_gradient_resnet18::net, work));
    all.push_back(gradients::run_gradient<bm::fsrcnn>({"fsrcnn"}, ein_generated::bench_gradient_fsrcnn::net, work));
    all.push_back(gradients::run_gradient<bm::csrnet>({"csrnet"}, ein_generated::bench_gradient_csrnet::net, work));
    all.push_back(gradients::run_gradient<bm::gcn>({"gcn", +variance}, ein_generated::bench_gradient_gcn::net, work));
    auto& longformer = all.emplace_back(
        gradients::run_gradient<bm::longformer>({"longformer"}, ein_generated::bench_gradient_longformer::net, work));
    longformer["config"] = {{"heads", bm::longformer::head_count}, {"half_window", bm::longformer::half_window},
                            {"dilation", bm::longformer::dilation}};
    std::ofstream(work + "/manifest.json") << manifest.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gradients: %s\n", e.what());
    return 1;
  }
}
