// cuBLAS support of generated CUDA plans: status checks and the handle a plan keeps.
#pragma once

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace ein::runtime {

/// A failed cuBLAS call: says which call, where, and cuBLAS's own name and text for the status.
class cublas_error : public std::runtime_error {
 public:
  cublas_error(cublasStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string("ein: cuBLAS call `") + call + "` failed at " + file + ":" +
                           std::to_string(line) + ": " + cublasGetStatusName(status) + " (" +
                           cublasGetStatusString(status) + ")"),
        status_(status) {}
  cublasStatus_t status() const { return status_; }

 private:
  cublasStatus_t status_;
};

inline void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw cublas_error(status, call, file, line);
}

/// An owned cuBLAS handle on the device current at construction. A plan keeps one per device,
/// stream and thread (runtime::per_stream): created on its first run there, destroyed at exit.
class cublas_handle {
 public:
  cublas_handle() { cublas_check(cublasCreate(&handle_), "cublasCreate(&handle_)", __FILE__, __LINE__); }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  // At exit the device may already be gone: a failed destroy is not worth reporting then.
  ~cublas_handle() { cublasDestroy(handle_); }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace ein::runtime

/// Throws ein::runtime::cublas_error when `call` does not return CUBLAS_STATUS_SUCCESS.
#define EIN_CUBLAS_CHECK(call) ::ein::runtime::cublas_check((call), #call, __FILE__, __LINE__)
