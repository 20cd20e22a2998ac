// Device-side support of generated CUDA plans: temporaries on a stream, the storage of prepared
// plans and the blocks a kernel keeps resident.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ein/error.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/eoperator.hpp"

namespace ein::runtime {

/// A device temporary allocated and freed in stream order (cudaMallocAsync), so a plan's
/// temporaries need no synchronization.
template <class T>
class device_buffer {
 public:
  device_buffer(std::size_t count, cudaStream_t s) : stream_(s) {
    EIN_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), count * sizeof(T), s));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { ignore_status(cudaFreeAsync(data_, stream_)); }
  T* data() const { return data_; }

 private:
  T* data_ = nullptr;
  cudaStream_t stream_;
};

/// The storage of a prepared cuda plan: `bytes` of device memory on the current device
/// (cudaMalloc, 256-byte aligned; not stream-ordered, since it outlives every stream's work), or
/// null for 0; free_device_storage releases it.
inline void* allocate_device_storage(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) EIN_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}
inline void free_device_storage(void* p) noexcept {
  if (p) ignore_status(cudaFree(p));
}

/// Rejects plain host memory bound to a cuda plan, which would otherwise fault inside a kernel
/// (device, managed and mapped pinned memory pass).
inline void expect_device_pointer(std::string_view name, const void* p) {
  cudaPointerAttributes attributes{};
  EIN_CUDA_CHECK(cudaPointerGetAttributes(&attributes, p));
  if (attributes.type == cudaMemoryTypeUnregistered)
    throw user_error("ein::run: tensor `" + std::string(name) +
                     "` is bound to host memory, but this plan runs on the CUDA device: bind "
                     "device memory, or call the plan's run_host()");
}

/// Makes the default memory pool of `device` keep the memory it frees (its release threshold
/// raised to the maximum), so that stream-ordered temporaries (device_buffer) are reused
/// instead of returned to the device and mapped again: a timing loop that synchronizes every
/// run would otherwise time the remapping.
inline void keep_pool_memory(int device) {
  cudaMemPool_t pool = nullptr;
  EIN_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t threshold = UINT64_MAX;
  EIN_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
}

/// The current device of the calling thread.
inline int current_device() {
  int device = 0;
  EIN_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

/// The multiprocessors of the current device, read once per device.
inline int multiprocessors() {
  static const std::vector<int> counts = [] {
    int devices = 0;
    EIN_CUDA_CHECK(cudaGetDeviceCount(&devices));
    std::vector<int> n(static_cast<std::size_t>(devices));
    for (int d = 0; d < devices; ++d) EIN_CUDA_CHECK(cudaDeviceGetAttribute(&n[d], cudaDevAttrMultiProcessorCount, d));
    return n;
  }();
  int device = 0;
  EIN_CUDA_CHECK(cudaGetDevice(&device));
  return counts.at(static_cast<std::size_t>(device));
}

/// The blocks of `threads` threads of `kernel` that the current device runs at once: its
/// multiprocessors times the kernel's occupancy (at least 1). Generated launches ask once, on
/// their first run, and size their grids with launch_blocks.
template <class Kernel>
unsigned resident_blocks(Kernel* kernel, int threads) {
  int per_multiprocessor = 0;
  EIN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, 0));
  return static_cast<unsigned>(std::max(1, per_multiprocessor) * multiprocessors());
}

}  // namespace ein::runtime
