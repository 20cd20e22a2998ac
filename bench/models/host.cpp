// The models against PyTorch, host side: each model's host plan (ein::prepare'd) on random inputs
// that it writes into the work folder with its output and manifest.json, timed on this machine's
// cores; compare.py runs the same inputs through PyTorch (docs/models.md).
//
//   bench_models <work folder>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <vector>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "models.hpp"

namespace {

// Host buffers, aligned as every element type wants; a run is timed by the steady clock, repeated
// for about a second (3 to 20 runs).
struct host_memory {
  using buffer = std::vector<float>;  // bytes, in floats for their alignment
  buffer upload(const std::vector<std::byte>& bytes) {
    buffer b((bytes.size() + sizeof(float) - 1) / sizeof(float));
    std::memcpy(b.data(), bytes.data(), bytes.size());
    return b;
  }
  // NaN in every element of every type, so an element the plan does not write shows.
  buffer output(std::size_t bytes) {
    buffer b((bytes + sizeof(float) - 1) / sizeof(float));
    std::memset(b.data(), 0xff, b.size() * sizeof(float));
    sizes_[b.data()] = bytes;
    return b;
  }
  void* data(buffer& b) { return b.data(); }
  std::vector<std::byte> download(const buffer& b) {
    std::vector<std::byte> bytes(sizes_.at(b.data()));
    std::memcpy(bytes.data(), b.data(), bytes.size());
    return bytes;
  }
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

 private:
  std::map<const float*, std::size_t> sizes_;  // the bytes of each output
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
