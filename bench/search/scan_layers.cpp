// The search over the seven models' layers one at a time, as the cuda backend runs them: for each
// layer, the plan as written, the chosen plan and the cheapest candidate of each kernel shape,
// under the H100 roofline profile with cuBLAS and cuDNN. What docs/discoveries.md was found with.
//
//   scan_layers [--explore E] [--converge C] [--top N] [NAME...]
//
// Searches every layer (or those whose name contains one of NAME...) with explore depth E
// (default 2) and converge depth C (default 3), and prints the N (default 8) cheapest kernel
// shapes of each, priced as the build runs them (search::seconds_as_run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ein/derive/all.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/optimize.hpp"
#include "search/rediscover_support.hpp"

namespace {

using namespace search_test;

struct layer {
  std::string name;
  std::function<scope_ptr()> make;
};

// The models' compute-heavy layers (docs/paper_cases.md), at batch 1 and 16 where both are telling.
std::vector<layer> layers() {
  std::vector<layer> out;
  for (std::int64_t b : {1, 16}) {
    auto at = [&](std::string n) { return n + "_b" + std::to_string(b); };
    out.push_back({at("infogan_t2"), [=] { return conv_transpose(b, 2, 448, 256, 4, 2, 1, 0); }});
    out.push_back({at("infogan_t3"), [=] { return conv_transpose(b, 4, 256, 128, 4, 2, 1, 0); }});
    out.push_back({at("infogan_t4"), [=] { return conv_transpose(b, 8, 128, 64, 4, 2, 1, 0); }});
    out.push_back({at("dcgan_t5"), [=] { return conv_transpose(b, 32, 64, 3, 4, 2, 1, 0); }});
    out.push_back({at("fsrcnn_t9"), [=] { return conv_transpose(b, 32, 56, 1, 9, 2, 4, 1); }});
    out.push_back({at("fsrcnn_5x5"), [=] { return conv_nhwc(b, 32, 1, 56, 5, 5, 1, 2, 2, 1); }});
    out.push_back({at("resnet_stem"), [=] { return conv_nhwc(b, 224, 3, 64, 7, 7, 2, 3, 3, 1); }});
    out.push_back({at("resnet_3x3_64"), [=] { return conv_nhwc(b, 56, 64, 64, 3, 3, 1, 1, 1, 1); }});
    out.push_back({at("resnet_3x3_512"), [=] { return conv_nhwc(b, 7, 512, 512, 3, 3, 1, 1, 1, 1); }});
    out.push_back({at("resnet50_1x1s2"), [=] { return conv_nhwc(b, 56, 256, 512, 1, 1, 2, 0, 0, 1); }});
    out.push_back({at("gcn_1x11"), [=] { return conv_nhwc(b, 7, 2048, 21, 1, 11, 1, 0, 5, 1); }});
    out.push_back({at("gcn_11x1_res2"), [=] { return conv_nhwc(b, 56, 256, 21, 11, 1, 1, 5, 0, 1); }});
    out.push_back({at("csrnet_512"), [=] { return conv_nhwc(b, 14, 512, 512, 3, 3, 1, 2, 2, 2); }});
    out.push_back({at("csrnet_256"), [=] { return conv_nhwc(b, 14, 512, 256, 3, 3, 1, 2, 2, 2); }});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  search::options opts;
  std::size_t top = 8;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--explore" && i + 1 < argc) {
      opts.explore_depth = std::atoi(argv[++i]);
    } else if (a == "--converge" && i + 1 < argc) {
      opts.converge_depth = std::atoi(argv[++i]);
    } else if (a == "--top" && i + 1 < argc) {
      top = static_cast<std::size_t>(std::atoi(argv[++i]));
    } else if (a.rfind("--", 0) == 0) {
      std::fprintf(stderr, "scan_layers: unknown option %s\n", a.c_str());
      return 2;
    } else {
      only.push_back(a);
    }
  }
  const auto& caps = cuda_with_cudnn();
  auto as_run = [&](const search::expression_plan& p) { return 1e3 * search::seconds_as_run(p, h100(), caps); };
  for (auto& l : layers()) {
    if (!only.empty() && std::none_of(only.begin(), only.end(), [&](auto& o) { return l.name.find(o) != std::string::npos; }))
      continue;
    auto src = l.make();
    auto start = std::chrono::steady_clock::now();
    auto r = search::optimize(src, derive::intra_rules(), h100(), opts);
    search::choose_for_backend(r, h100(), caps, ein::ir::dtype::f32);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("== %s: %zu candidates, %.1f s\n", l.name.c_str(), r.candidates.size(), seconds);
    std::printf("   as written  %-44s %.4f ms (%.4f ms with every operator a library call)\n",
                r.baseline.shape().c_str(), as_run(r.baseline), 1e3 * r.baseline.seconds);
    std::printf("   chosen      %-44s %.4f ms\n", r.best.shape().c_str(), as_run(r.best));
    std::map<std::string, double> cheapest;
    for (auto& c : r.candidates) {
      auto [it, fresh] = cheapest.try_emplace(c.p.shape(), as_run(c.p));
      if (!fresh) it->second = std::min(it->second, as_run(c.p));
    }
    std::vector<std::pair<double, std::string>> by_time;
    for (auto& [shape, t] : cheapest) by_time.push_back({t, shape});
    std::sort(by_time.begin(), by_time.end());
    for (std::size_t i = 0; i < by_time.size() && i < top; ++i)
      std::printf("   %-56s %.4f ms\n", by_time[i].second.c_str(), by_time[i].first);
    std::fflush(stdout);
  }
}
