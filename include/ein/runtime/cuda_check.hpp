// CUDA status checks: every runtime call and kernel launch of a generated plan goes through one.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "ein/detail/error.hpp"

namespace ein::runtime {

/// A failed CUDA call: says which call, where, and CUDA's own name and text for the status.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string("ein: CUDA call `") + call + "` failed at " + file + ":" +
                           std::to_string(line) + ": " + cudaGetErrorName(status) + " (" +
                           cudaGetErrorString(status) + ")"),
        status_(status) {}
  cudaError_t status() const { return status_; }

 private:
  cudaError_t status_;
};

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw cuda_error(status, call, file, line);
}

}  // namespace ein::runtime

/// Throws ein::runtime::cuda_error when `call` does not return cudaSuccess.
#define EIN_CUDA_CHECK(call) ::ein::runtime::cuda_check((call), #call, __FILE__, __LINE__)
