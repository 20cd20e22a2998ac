// What the cuda examples share: a device copy of a host vector, and the check that a CUDA device
// exists (the examples exit with 77, "skipped", where none does).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <vector>

#include "ein/runtime/cuda_check.hpp"

namespace examples {

/// A device copy of a host vector, freed with it.
struct device_vector {
  float* data = nullptr;
  std::size_t count;
  explicit device_vector(const std::vector<float>& v) : count(v.size()) {
    EIN_CUDA_CHECK(cudaMalloc(&data, count * sizeof(float)));
    EIN_CUDA_CHECK(cudaMemcpy(data, v.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }
  device_vector(const device_vector&) = delete;
  ~device_vector() { cudaFree(data); }

  /// The device values, copied back into `v` (of `count` elements).
  void copy_to(std::vector<float>& v) const {
    EIN_CUDA_CHECK(cudaMemcpy(v.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
  }
};

/// Whether a CUDA device exists; says so for `program` when none does.
inline bool cuda_device_present(const char* program) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  std::printf("no CUDA device: %s compiled but cannot run here\n", program);
  return false;
}

}  // namespace examples
