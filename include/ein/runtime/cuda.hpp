// Device-side support of generated CUDA plans: temporaries on a stream, the storage of prepared
// plans and launch sizes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ein/detail/error.hpp"
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
  ~device_buffer() { cudaFreeAsync(data_, stream_); }
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
  if (p) cudaFree(p);
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

/// Threads per block of an eOperator kernel, and blocks for `total` outputs; the kernels loop
/// with a grid stride, so the grid is capped.
inline constexpr unsigned block_size = 256;
inline unsigned grid_size(std::int64_t total) {
  std::int64_t blocks = (total + block_size - 1) / block_size;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, 65535 * 32));
}

}  // namespace ein::runtime
