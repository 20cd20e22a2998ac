// The models against PyTorch, GPU side: each model's cuda plan (ein::prepare'd) on random inputs
// that it writes into the work folder with its output and manifest.json, timed with CUDA events
// (median of 50 runs after 5 warm-ups), captured into a CUDA graph and timed alike, and each step
// timed with CUDA events (ein::profile); compare.py runs the same inputs through PyTorch eager and
// torch.compile (docs/models.md).
//
//   bench_models <work folder>
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "ein/profile_cuda.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "gpu/gpu_timing.hpp"
#include "models.hpp"

namespace {

namespace gpu = ein::bench::gpu;

// Device memory of `bytes` bytes.
class device_bytes {
 public:
  explicit device_bytes(std::size_t bytes) : bytes_(bytes) { EIN_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(bytes, 1))); }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
  ~device_bytes() { cudaFree(data_); }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// Device buffers on one stream.
struct cuda_memory {
  using buffer = std::unique_ptr<device_bytes>;
  cudaStream_t s = nullptr;
  buffer upload(const std::vector<std::byte>& bytes) {
    auto b = std::make_unique<device_bytes>(bytes.size());
    EIN_CUDA_CHECK(cudaMemcpy(b->data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    return b;
  }
  // Every byte 0xff: NaN in every element of every type, so an element the plan does not write shows.
  buffer output(std::size_t bytes) {
    auto b = std::make_unique<device_bytes>(bytes);
    poison(b);
    return b;
  }
  void poison(buffer& b) {
    EIN_CUDA_CHECK(cudaStreamSynchronize(s));
    EIN_CUDA_CHECK(cudaMemset(b->data(), 0xff, b->bytes()));
  }
  void* data(buffer& b) { return b->data(); }
  std::vector<std::byte> download(const buffer& b) {
    EIN_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<std::byte> bytes(b->bytes());
    EIN_CUDA_CHECK(cudaMemcpy(bytes.data(), b->data(), bytes.size(), cudaMemcpyDeviceToHost));
    return bytes;
  }
  ein::runtime::stream stream() { return s; }
  template <class F>
  double median_ms(F&& f) {
    return gpu::median_ms(f, s);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <work folder>\n", argv[0]);
    return 2;
  }
  if (auto status = ein::runtime::exit_without_device("bench_models")) return *status;
  try {
    auto device = gpu::describe_device();
    ein::runtime::keep_pool_memory(0);
    cuda_memory memory;
    EIN_CUDA_CHECK(cudaStreamCreate(&memory.s));
    nlohmann::json manifest = {{"backend", "cuda"},
                               {"gpu", device.name},
                               {"cuda", device.runtime},
                               {"ein_timing", "median of 50 runs after 5 warm-ups, CUDA events"}};
    manifest["models"] = ein::bench::models::run_all(argv[1], memory);
    std::ofstream(std::string(argv[1]) + "/manifest.json") << manifest.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_models: %s\n", e.what());
    return 1;
  }
}
