// What the cuda examples share: a device copy of a host vector, and the check that a CUDA device
// is here (ein/runtime/cuda_device.hpp: the examples exit with 77, "skipped", where none is, and
// fail where the CUDA setup is broken).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cuda_device.hpp"

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

}  // namespace examples
