// The models against PyTorch, host side: each model's host plan (ein::prepare'd) on random inputs
// that it writes into the work folder with its output and manifest.json, timed on this machine's
// cores; compare.py runs the same inputs through PyTorch (docs/models.md).
//
//   bench_models <work folder>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "models.hpp"

namespace {

// Host buffers; a run is timed by the steady clock, repeated for about a second (3 to 20 runs).
struct host_memory {
  using buffer = std::vector<float>;
  buffer upload(const std::vector<float>& v) { return v; }
  buffer output(std::size_t count) { return buffer(count, -7.0f); }
  float* data(buffer& b) { return b.data(); }
  std::vector<float> download(const buffer& b) { return b; }
  ein::runtime::stream stream() { return nullptr; }
  template <class F>
  double median_ms(F&& f) {
    using clock = std::chrono::steady_clock;
    std::vector<double> ms;
    auto start = clock::now();
    while (ms.size() < 20 && (ms.size() < 3 || clock::now() - start < std::chrono::seconds(1))) {
      auto t0 = clock::now();
      f();
      ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    return ein::bench::median(ms);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <work folder>\n", argv[0]);
    return 2;
  }
  try {
    host_memory memory;
    nlohmann::json manifest = {{"backend", "host"},
                               {"machine", {{"cpu", ein::bench::cpu_model()},
                                            {"processors", ein::bench::processors()},
                                            {"load_average", ein::bench::load_average()}}},
                               {"when", ein::bench::utc_now()},
                               {"ein_timing", "median of 3 to 20 runs (about a second) of the prepared plan"}};
    manifest["models"] = ein::bench::models::run_all(argv[1], memory);
    std::ofstream(std::string(argv[1]) + "/manifest.json") << manifest.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_models: %s\n", e.what());
    return 1;
  }
}
