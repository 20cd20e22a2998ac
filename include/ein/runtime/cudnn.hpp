// cuDNN support of generated CUDA plans: status checks, the handle a plan keeps and the state of
// one convolution step (descriptors, algorithm and workspace, set up once).
#pragma once

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "ein/runtime/cuda_check.hpp"

namespace ein::runtime {

/// A failed cuDNN call: says which call, where, and cuDNN's own text for the status.
class cudnn_error : public std::runtime_error {
 public:
  cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string("ein: cuDNN call `") + call + "` failed at " + file + ":" +
                           std::to_string(line) + ": " + cudnnGetErrorString(status)),
        status_(status) {}
  cudnnStatus_t status() const { return status_; }

 private:
  cudnnStatus_t status_;
};

inline void cudnn_check(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw cudnn_error(status, call, file, line);
}

/// An owned cuDNN handle on the device current at construction. A plan keeps one in a
/// function-local static: created on its first run, destroyed at exit.
class cudnn_handle {
 public:
  cudnn_handle() { cudnn_check(cudnnCreate(&handle_), "cudnnCreate(&handle_)", __FILE__, __LINE__); }
  cudnn_handle(const cudnn_handle&) = delete;
  cudnn_handle& operator=(const cudnn_handle&) = delete;
  // At exit the device may already be gone: a failed destroy is not worth reporting then.
  ~cudnn_handle() { cudnnDestroy(handle_); }
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

/// What one convolution step of a plan keeps between runs: its descriptors, the algorithm and
/// the workspace. A plan keeps one per step in a function-local static whose construction runs
/// `setup(*this)` once (set the descriptors, choose the algorithm, allocate_workspace).
class cudnn_convolution {
 public:
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t forward_algo{};
  cudnnConvolutionBwdDataAlgo_t backward_data_algo{};
  void* workspace = nullptr;
  std::size_t workspace_size = 0;

  template <class Setup>
  explicit cudnn_convolution(Setup&& setup) {
    try {
      cudnn_check(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor(&x)", __FILE__, __LINE__);
      cudnn_check(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor(&y)", __FILE__, __LINE__);
      cudnn_check(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor(&w)", __FILE__, __LINE__);
      cudnn_check(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor(&conv)",
                  __FILE__, __LINE__);
      setup(*this);
    } catch (...) {
      release();
      throw;
    }
  }
  cudnn_convolution(const cudnn_convolution&) = delete;
  cudnn_convolution& operator=(const cudnn_convolution&) = delete;
  ~cudnn_convolution() { release(); }

  /// Allocates `bytes` of device workspace (none for 0), once.
  void allocate_workspace(std::size_t bytes) {
    if (bytes > 0) EIN_CUDA_CHECK(cudaMalloc(&workspace, bytes));
    workspace_size = bytes;
  }

 private:
  // At exit the device may already be gone: failed frees are not worth reporting then.
  void release() {
    if (workspace) cudaFree(workspace);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

/// The first algorithm of `perf[0, found)` that cuDNN reports as runnable.
template <class Perf>
auto first_runnable(const Perf* perf, int found) -> decltype(perf->algo) {
  for (int i = 0; i < found; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i].algo;
  throw cudnn_error(CUDNN_STATUS_NOT_SUPPORTED, "first_runnable(perf, found)", __FILE__, __LINE__);
}

}  // namespace ein::runtime

/// Throws ein::runtime::cudnn_error when `call` does not return CUDNN_STATUS_SUCCESS.
#define EIN_CUDNN_CHECK(call) ::ein::runtime::cudnn_check((call), #call, __FILE__, __LINE__)
