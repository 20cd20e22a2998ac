// What the GPU benchmarks share: the device's description, the median time of a stream's work
// measured with CUDA events, device arrays of random values, and the device's copy bandwidth.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/statistics.hpp"
#include "ein/runtime/cuda_check.hpp"

namespace ein::bench::gpu {

/// The device a benchmark runs on, as its results name it.
struct device_info {
  std::string name;
  int multiprocessors = 0;
  int compute_capability = 0;  // 90 for Hopper
  double l2_megabytes = 0;
  double memory_gigabytes = 0;
  std::string runtime;         // CUDA runtime and driver versions
};

inline device_info describe_device(int device = 0) {
  cudaDeviceProp p{};
  EIN_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  int runtime = 0, driver = 0;
  EIN_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  EIN_CUDA_CHECK(cudaDriverGetVersion(&driver));
  return {p.name, p.multiProcessorCount, p.major * 10 + p.minor, p.l2CacheSize / 1048576.0,
          static_cast<double>(p.totalGlobalMem) / 1073741824.0,
          "runtime " + std::to_string(runtime) + ", driver " + std::to_string(driver)};
}

/// The median time in milliseconds of `runs` calls of `f` (work on stream `s`), each timed with
/// CUDA events, after `warmup` untimed calls.
template <class F>
double median_ms(F&& f, cudaStream_t s, int warmup = 5, int runs = 50) {
  for (int i = 0; i < warmup; ++i) f();
  cudaEvent_t start, stop;
  EIN_CUDA_CHECK(cudaEventCreate(&start));
  EIN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    EIN_CUDA_CHECK(cudaEventRecord(start, s));
    f();
    EIN_CUDA_CHECK(cudaEventRecord(stop, s));
    EIN_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    EIN_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(ms);
}

/// A device array of `count` floats, freed with it.
class device_array {
 public:
  explicit device_array(std::size_t count) : count_(count) {
    EIN_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(count, 1) * sizeof(float)));
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() { cudaFree(data_); }
  float* data() const { return data_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(float); }

  /// Copies `host` (count() values) to the device.
  void upload(const std::vector<float>& host) {
    EIN_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<float> download() const {
    std::vector<float> host(count_);
    EIN_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  /// Every byte 0xff: a NaN in every float, so an element a kernel does not write shows.
  void poison() { EIN_CUDA_CHECK(cudaMemset(data_, 0xff, bytes())); }

 private:
  float* data_ = nullptr;
  std::size_t count_;
};

/// `count` values uniform in [-1, 1), never 0 (splitmix64 from `seed`).
inline std::vector<float> random_values(std::size_t count, std::uint64_t seed) {
  std::vector<float> v(count);
  std::uint64_t state = seed;
  for (auto& x : v) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    float u = static_cast<float>(static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    x = u == 0.0f ? 0.5f : u;
  }
  return v;
}

/// The device's copy bandwidth in GB/s, counting the bytes read and those written: the median of
/// cudaMemcpyAsync device to device of `bytes` on stream `s`.
inline double copy_bandwidth(std::size_t bytes, cudaStream_t s) {
  void *from = nullptr, *to = nullptr;
  EIN_CUDA_CHECK(cudaMalloc(&from, bytes));
  EIN_CUDA_CHECK(cudaMalloc(&to, bytes));
  EIN_CUDA_CHECK(cudaMemset(from, 1, bytes));
  double ms = median_ms([&] { EIN_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, s)); }, s);
  cudaFree(from);
  cudaFree(to);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9;
}

}  // namespace ein::bench::gpu
