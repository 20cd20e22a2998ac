// CUDA status checks: every runtime call and kernel launch of a generated plan goes through one.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "ein/error.hpp"
#include "ein/runtime/call_error.hpp"

namespace ein::runtime {

/// A failed CUDA call: says which call, where, and CUDA's own name and text for the status.
class cuda_error : public call_error<cudaError_t> {
 public:
  cuda_error(cudaError_t status, const char* call, const char* file, int line)
      : call_error(status, "CUDA", call, file, line,
                   std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")") {}
};

/// Throws cuda_error for a failed `call`. The failure is also taken out of the thread's last
/// error (cudaGetLastError), which the launch checks of generated plans read: a caller that
/// catches it would otherwise see the next launch report it as its own.
inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());
  throw cuda_error(status, call, file, line);
}

/// For a call whose failure is not worth reporting (a free at exit, when the device may be gone;
/// the end of a capture that is already failing): drops its status and the last error it leaves,
/// for the reason given at cuda_check. A sticky error (a faulted context) stays: every later call
/// reports it.
inline void ignore_status(cudaError_t status) noexcept {
  if (status != cudaSuccess) static_cast<void>(cudaGetLastError());
}

}  // namespace ein::runtime

/// Throws ein::runtime::cuda_error when `call` does not return cudaSuccess.
#define EIN_CUDA_CHECK(call) ::ein::runtime::cuda_check((call), #call, __FILE__, __LINE__)
