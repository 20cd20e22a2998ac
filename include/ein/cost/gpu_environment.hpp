// The setup of a CUDA device that measured kernel times depend on: its compute capability and the
// versions of the driver, the runtime, cuBLAS and (with EIN_HAVE_CUDNN) cuDNN.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <library_types.h>
#if defined(EIN_HAVE_CUDNN)
#include <cudnn.h>
#endif

#include <string>

#include "ein/cost/cache.hpp"
#include "ein/runtime/cublas.hpp"
#include "ein/runtime/cuda_check.hpp"

namespace ein::cost {

/// The setup of CUDA device `device` as the cost cache records it, e.g. compute capability
/// `9.0`, driver `12040`, runtime `12040`, cuBLAS `12.4.5`, cuDNN `90100` (cudnnGetVersion; empty
/// without EIN_HAVE_CUDNN). Throws runtime::cuda_error when the runtime cannot answer.
inline environment gpu_environment(int device = 0) {
  environment e;
  cudaDeviceProp p{};
  EIN_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  e.fields["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
  int v = 0;
  EIN_CUDA_CHECK(cudaDriverGetVersion(&v));
  e.fields["driver"] = std::to_string(v);
  EIN_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  e.fields["runtime"] = std::to_string(v);
  int major = 0, minor = 0, patch = 0;
  EIN_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
  EIN_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
  EIN_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
  e.fields["cublas"] = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#if defined(EIN_HAVE_CUDNN)
  e.fields["cudnn"] = std::to_string(cudnnGetVersion());
#else
  e.fields["cudnn"] = "";
#endif
  return e;
}

}  // namespace ein::cost
