// cuBLAS support of generated CUDA plans: status checks and the handle a plan keeps.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/resource_owner.hpp"

namespace ein::runtime {

/// A failed cuBLAS call: says which call, where, and cuBLAS's own name and text for the status.
class cublas_error : public call_error<cublasStatus_t> {
 public:
  cublas_error(cublasStatus_t status, const char* call, const char* file, int line)
      : call_error(status, "cuBLAS", call, file, line,
                   std::string(cublasGetStatusName(status)) + " (" + cublasGetStatusString(status) + ")") {}
};

inline void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw cublas_error(status, call, file, line);
}

/// An owned cuBLAS handle on the device current at construction. A plan keeps one per device,
/// stream and thread (runtime::per_stream), made for that stream by the plan's prepare() (or its
/// first run there) and kept for the process (or until its stream's state is released).
class cublas_handle : resource_owner {
 public:
  cublas_handle() { create(); }
  /// A handle bound for good to `stream`, with a workspace of its own (workspace_bytes(), by
  /// cudaMalloc): cuBLAS then allocates nothing on a run, which stream capture requires, and
  /// handles of different streams never share a workspace. cublasSetStream would reset the
  /// workspace to cuBLAS's default pool: the handle's stream is never set again.
  explicit cublas_handle(cudaStream_t stream) {
    create();
    const release_on_throw undo([this] { release(); });
    EIN_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes()));
    cublas_check(cublasSetStream(handle_, stream), "cublasSetStream(handle_, stream)", __FILE__, __LINE__);
    cublas_check(cublasSetWorkspace(handle_, workspace_, workspace_bytes()),
                 "cublasSetWorkspace(handle_, workspace_, workspace_bytes())", __FILE__, __LINE__);
  }
  ~cublas_handle() { release(); }
  cublasHandle_t get() const { return handle_; }

  /// The workspace cuBLAS's documentation recommends for the current device (cublasSetWorkspace):
  /// 32 MiB from Hopper (compute capability 9) on, 4 MiB before.
  static std::size_t workspace_bytes() {
    int device = 0, major = 0;
    EIN_CUDA_CHECK(cudaGetDevice(&device));
    EIN_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return (major >= 9 ? 32u : 4u) << 20;
  }

 private:
  void create() { cublas_check(cublasCreate(&handle_), "cublasCreate(&handle_)", __FILE__, __LINE__); }
  // At exit the device may already be gone: a failed destroy is not worth reporting then.
  void release() noexcept {
    cublasDestroy(handle_);
    if (workspace_) ignore_status(cudaFree(workspace_));
  }

  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

}  // namespace ein::runtime

/// Throws ein::runtime::cublas_error when `call` does not return CUBLAS_STATUS_SUCCESS.
#define EIN_CUBLAS_CHECK(call) ::ein::runtime::cublas_check((call), #call, __FILE__, __LINE__)
