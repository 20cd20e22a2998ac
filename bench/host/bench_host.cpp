// The host benchmark: each convolution of shapes.hpp (five shapes and six of the models' layers) as ein's searched plan without
// oneDNN and with it, as written (SEARCH OFF) and as oneDNN runs it, all prepared once for their
// weights, timed over the same inputs; prints a table and writes bench/results/host.json, naming
// the machine.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "host/onednn_peer.hpp"
#include "host/shapes.hpp"
#include "ein_generated/host_onednn_1.hpp"
#include "ein_generated/host_onednn_2.hpp"
#include "ein_generated/host_onednn_3.hpp"
#include "ein_generated/host_onednn_4.hpp"
#include "ein_generated/host_onednn_5.hpp"
#include "ein_generated/host_onednn_6.hpp"
#include "ein_generated/host_onednn_7.hpp"
#include "ein_generated/host_onednn_8.hpp"
#include "ein_generated/host_onednn_9.hpp"
#include "ein_generated/host_onednn_10.hpp"
#include "ein_generated/host_onednn_11.hpp"
#include "ein_generated/host_searched_1.hpp"
#include "ein_generated/host_searched_2.hpp"
#include "ein_generated/host_searched_3.hpp"
#include "ein_generated/host_searched_4.hpp"
#include "ein_generated/host_searched_5.hpp"
#include "ein_generated/host_searched_6.hpp"
#include "ein_generated/host_searched_7.hpp"
#include "ein_generated/host_searched_8.hpp"
#include "ein_generated/host_searched_9.hpp"
#include "ein_generated/host_searched_10.hpp"
#include "ein_generated/host_searched_11.hpp"
#include "ein_generated/host_written_1.hpp"
#include "ein_generated/host_written_2.hpp"
#include "ein_generated/host_written_3.hpp"
#include "ein_generated/host_written_4.hpp"
#include "ein_generated/host_written_5.hpp"
#include "ein_generated/host_written_6.hpp"
#include "ein_generated/host_written_7.hpp"
#include "ein_generated/host_written_8.hpp"
#include "ein_generated/host_written_9.hpp"
#include "ein_generated/host_written_10.hpp"
#include "ein_generated/host_written_11.hpp"

namespace {

constexpr int runs = 50;

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// Milliseconds of one call of `f`.
template <class F>
double milliseconds(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The largest |a - b| over the largest |b|.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// Times the searched plan of one shape without and with oneDNN, the written one and oneDNN's,
// alternating runs so that all see the same load; returns its row of the results.
template <auto& Searched, auto& Written, auto& WithOnednn>
nlohmann::json measure(const char* name, const host_bench::conv_shape& shape) {
  using searched_plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(Searched)>>;
  using onednn_plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(WithOnednn)>>;
  auto p = ein::reify(Searched);
  std::size_t x_size = 1, k_size = 1, y_size = 1;
  for (auto& t : p.tensors) {
    std::size_t n = 1;
    for (auto e : t.shape) n *= static_cast<std::size_t>(e);
    (t.name == "X" ? x_size : k_size) = n;
  }
  for (auto& it : p.find_definition("y")->value->traversal) y_size *= static_cast<std::size_t>(it.extent());
  auto x = random_values(x_size, 1), k = random_values(k_size, 2);
  std::vector<float> y(y_size), z(y_size), v(y_size), d(y_size);
  auto searched = ein::prepare(Searched, {{"K", k}});
  auto written = ein::prepare(Written, {{"K", k}});
  auto with_onednn = ein::prepare(WithOnednn, {{"K", k}});
  host_bench::onednn_conv peer(shape, k);
  std::vector<double> t_searched, t_written, t_onednn, t_peer;
  searched.run({{"X", x}, {"y", y}});
  written.run({{"X", x}, {"z", z}});
  with_onednn.run({{"X", x}, {"v", v}});
  peer.run(x, d);
  for (int r = 0; r < runs; ++r) {
    t_searched.push_back(milliseconds([&] { searched.run({{"X", x}, {"y", y}}); }));
    t_written.push_back(milliseconds([&] { written.run({{"X", x}, {"z", z}}); }));
    t_onednn.push_back(milliseconds([&] { with_onednn.run({{"X", x}, {"v", v}}); }));
    t_peer.push_back(milliseconds([&] { peer.run(x, d); }));
  }
  double ms_searched = ein::bench::median(t_searched), ms_written = ein::bench::median(t_written),
         ms_onednn = ein::bench::median(t_onednn), ms_peer = ein::bench::median(t_peer);
  std::printf("| %s | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.2f | %.2f |\n", name, ms_searched, ms_onednn,
              ms_written, ms_peer, ms_peer / ms_searched, ms_peer / ms_onednn);
  return {{"shape", name},
          {"searched_ms", ms_searched},
          {"searched_onednn_ms", ms_onednn},
          {"written_ms", ms_written},
          {"onednn_ms", ms_peer},
          {"searched_vs_written_max_rel_diff", relative_difference(y, z)},
          {"searched_vs_onednn_max_rel_diff", relative_difference(y, d)},
          {"searched_onednn_vs_onednn_max_rel_diff", relative_difference(v, d)},
          {"searched_plan", std::string(searched_plan::description)},
          {"searched_onednn_plan", std::string(onednn_plan::description)}};
}

}  // namespace

int main(int argc, char** argv) {
  nlohmann::json r;
  r["machine"] = {{"cpu", ein::bench::cpu_model()},
                  {"processors", ein::bench::processors()},
                  {"openmp_threads", omp_get_max_threads()},
                  {"load_average_at_start", ein::bench::load_average()},
                  {"utc", ein::bench::utc_now()}};
  r["method"] = "ein::prepare'd plans, the searched one (BACKEND host, default profile) without oneDNN and with "
                "it, and the one as written (SEARCH OFF), and oneDNN's convolution with its weights reordered once, "
                "run alternately on the same random inputs; medians of " +
                std::to_string(runs) + " runs each";
  std::printf("%s, %d threads, oneDNN %d.%d\n\n| shape (NHWC) | ein searched | ein searched with oneDNN "
              "| ein as written | oneDNN | oneDNN / ein | oneDNN / ein with oneDNN |\n|---|---|---|---|---|---|---|\n",
              ein::bench::cpu_model().c_str(), omp_get_max_threads(), dnnl_version()->major, dnnl_version()->minor);
  using namespace host_bench;
  r["shapes"] = {
      measure<searched_1, written_1, onednn_1>(
          "3×3 [1,7,7,512] → 512, pad 1", conv_shape{1, 7, 7, 512, 512, 3, 3, 1, 1, 1, false}),
      measure<searched_2, written_2, onednn_2>(
          "3×3 [2,14,14,256] → 256, pad 1", conv_shape{2, 14, 14, 256, 256, 3, 3, 1, 1, 1, false}),
      measure<searched_3, written_3, onednn_3>(
          "3×3 stride 2 [1,17,23,24] → 40", conv_shape{1, 17, 23, 24, 40, 3, 3, 2, 0, 0, false}),
      measure<searched_4, written_4, onednn_4>(
          "transposed 4×4 stride 2 [4,4,4,512] → 256, pad 1", conv_shape{4, 4, 4, 512, 256, 4, 4, 2, 1, 1, true}),
      measure<searched_5, written_5, onednn_5>(
          "transposed 9×9 [1,32,32,56] → 1, pad 4", conv_shape{1, 32, 32, 56, 1, 9, 9, 1, 4, 4, true}),
      measure<searched_6, written_6, onednn_6>(
          "ResNet stem 7×7 stride 2 [1,224,224,3] → 64, pad 3", conv_shape{1, 224, 224, 3, 64, 7, 7, 2, 3, 3, false}),
      measure<searched_7, written_7, onednn_7>(
          "ResNet-50 1×1 stride 2 [1,56,56,256] → 512", conv_shape{1, 56, 56, 256, 512, 1, 1, 2, 0, 0, false}),
      measure<searched_8, written_8, onednn_8>(
          "CSRNet 3×3 dilation 2 [1,14,14,512] → 512, pad 2", conv_shape{1, 14, 14, 512, 512, 3, 3, 1, 2, 2, false, 2}),
      measure<searched_9, written_9, onednn_9>(
          "GCN 11×1 [1,28,28,512] → 21, pad 5×0", conv_shape{1, 28, 28, 512, 21, 11, 1, 1, 5, 0, false}),
      measure<searched_10, written_10, onednn_10>(
          "FSRCNN 5×5 [1,32,32,1] → 56, pad 2", conv_shape{1, 32, 32, 1, 56, 5, 5, 1, 2, 2, false}),
      measure<searched_11, written_11, onednn_11>(
          "InfoGAN transposed 4×4 stride 2 [1,8,8,128] → 64, pad 1", conv_shape{1, 8, 8, 128, 64, 4, 4, 2, 1, 1, true}),
  };
  r["environment"] = {{"OMP_WAIT_POLICY", std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : ""},
                      {"OMP_NUM_THREADS", std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : ""}};
  if (argc > 1) std::ofstream(argv[1]) << r.dump(2) << "\n";
}
