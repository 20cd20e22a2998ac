// cuDNN support of generated CUDA plans: status checks, the handle a plan keeps and the state of
// one convolution step (descriptors, math type, algorithm and workspace, set up once).
#pragma once

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "ein/runtime/convolution_geometry.hpp"
#include "ein/runtime/cuda_check.hpp"

namespace ein::runtime {

/// A failed cuDNN call: says which call, where, cuDNN's text for the status and, from cuDNN 9 on,
/// cuDNN's own account of the last error (cudnnGetLastErrorString).
class cudnn_error : public std::runtime_error {
 public:
  cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string("ein: cuDNN call `") + call + "` failed at " + file + ":" +
                           std::to_string(line) + ": " + cudnnGetErrorString(status) + last_error()),
        status_(status) {}
  cudnnStatus_t status() const { return status_; }

 private:
  static std::string last_error() {
#if CUDNN_MAJOR >= 9
    char text[1024] = {};
    cudnnGetLastErrorString(text, sizeof text);
    if (text[0]) return std::string(" (") + text + ")";
#endif
    return {};
  }
  cudnnStatus_t status_;
};

inline void cudnn_check(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw cudnn_error(status, call, file, line);
}

}  // namespace ein::runtime

/// Throws ein::runtime::cudnn_error when `call` does not return CUDNN_STATUS_SUCCESS.
#define EIN_CUDNN_CHECK(call) ::ein::runtime::cudnn_check((call), #call, __FILE__, __LINE__)

namespace ein::runtime {

/// An owned cuDNN handle on the device current at construction. A plan keeps one per device,
/// stream and thread (runtime::per_stream), made for that stream by the plan's prepare() (or its
/// first run there) and kept for the process (or until its stream's state is released).
class cudnn_handle {
 public:
  cudnn_handle() { EIN_CUDNN_CHECK(cudnnCreate(&handle_)); }
  /// A handle bound for good to `stream`: a plan's runs then set no stream on it. (The
  /// delegated constructor has made the object: the destructor destroys the handle on a throw.)
  explicit cudnn_handle(cudaStream_t stream) : cudnn_handle() { EIN_CUDNN_CHECK(cudnnSetStream(handle_, stream)); }
  cudnn_handle(const cudnn_handle&) = delete;
  cudnn_handle& operator=(const cudnn_handle&) = delete;
  // At exit the device may already be gone: a failed destroy is not worth reporting then.
  ~cudnn_handle() { cudnnDestroy(handle_); }
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

/// How a convolution chooses its algorithm: the first of cuDNN's heuristics (…Algorithm_v7,
/// instant; what plans do) or the fastest that cuDNN measures on the device
/// (cudnnFind…Algorithm, which runs every algorithm; what the GPU baseline benchmark does).
enum class algorithm_choice : unsigned char { heuristic, fastest };

/// What one convolution step of a plan keeps between runs: its descriptors, the algorithm and
/// the workspace, set up for a geometry on a handle. A plan keeps one per step, device, stream and
/// thread (runtime::per_stream: set up by its prepare() or its first run there); the measured
/// cost model times the same.
class cudnn_convolution {
 public:
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t forward_algo{};
  cudnnConvolutionBwdDataAlgo_t backward_data_algo{};
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  cudnnTensorDescriptor_t bias = nullptr;             // a fused convolution's: 1 × k × 1 × 1
  cudnnActivationDescriptor_t activation = nullptr;   // a fused convolution's: ReLU or identity

  /// Sets the descriptors and the math type, takes the first algorithm that `choice` ranks
  /// (choose()) and allocates its workspace. Throws cudnn_error (CUDNN_STATUS_NOT_SUPPORTED) when
  /// no algorithm is runnable.
  cudnn_convolution(cudnnHandle_t handle, const convolution_geometry& g,
                    algorithm_choice choice = algorithm_choice::heuristic) {
    try {
      EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
      EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
      EIN_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
      EIN_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
      const cudnnDataType_t data = g.f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
      EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(x, data, 4, g.x_dims, g.x_strides));
      EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(y, data, 4, g.y_dims, g.y_strides));
      EIN_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, data, g.krsc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, g.filter[0],
                                                 g.filter[1], g.filter[2], g.filter[3]));
      EIN_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, g.pad[0], g.pad[1], g.stride[0], g.stride[1],
                                                      g.dilation[0], g.dilation[1], CUDNN_CROSS_CORRELATION, data));
      if (g.groups != 1) EIN_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv, g.groups));
      const cudnnMathType_t math = math_type(g);
      EIN_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, math));
      std::size_t bytes = 0;
      if (g.forward) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int found = 0;
        if (choice == algorithm_choice::heuristic)
          EIN_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                                 &found, perf));
        else
          EIN_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                               &found, perf));
        forward_algo = g.fused && !g.relu ? fused_identity_algorithm(perf, found) : choose(perf, found, math);
        EIN_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, forward_algo, &bytes));
      } else {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        int found = 0;
        if (choice == algorithm_choice::heuristic)
          EIN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x,
                                                                      CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
        else
          EIN_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithm(handle, w, y, conv, x,
                                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
        backward_data_algo = choose(perf, found, math);
        EIN_CUDNN_CHECK(
            cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x, backward_data_algo, &bytes));
      }
      if (g.fused) {
        const int k = g.y_dims[1], dims[4] = {1, k, 1, 1}, strides[4] = {k, 1, 1, 1};
        EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&bias));
        EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(bias, data, 4, dims, strides));
        EIN_CUDNN_CHECK(cudnnCreateActivationDescriptor(&activation));
        EIN_CUDNN_CHECK(cudnnSetActivationDescriptor(
            activation, g.relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0));
      }
      if (bytes > 0) EIN_CUDA_CHECK(cudaMalloc(&workspace, bytes));
      workspace_size = bytes;
    } catch (...) {
      release();
      throw;
    }
  }
  cudnn_convolution(const cudnn_convolution&) = delete;
  cudnn_convolution& operator=(const cudnn_convolution&) = delete;
  ~cudnn_convolution() { release(); }

  /// CUDNN_DEFAULT_MATH where TF32 is allowed (cuDNN then may use tensor cores), else
  /// CUDNN_FMA_MATH: on Ampere and later the default lets cuDNN round float operands to TF32.
  static cudnnMathType_t math_type(const convolution_geometry& g) {
    return g.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  }

  /// The algorithm of `perf[0, found)` to run under `math`: the first runnable one (status
  /// success) whose math type is `math`, else the first runnable one (run under `math`, which
  /// the descriptor keeps).
  template <class Perf>
  static auto choose(const Perf* perf, int found, cudnnMathType_t math) -> decltype(perf->algo) {
    for (int i = 0; i < found; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == math) return perf[i].algo;
    for (int i = 0; i < found; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS) return perf[i].algo;
    throw cudnn_error(CUDNN_STATUS_NOT_SUPPORTED, "choose(perf, found, math): no runnable algorithm", __FILE__,
                      __LINE__);
  }

  /// IMPLICIT_PRECOMP_GEMM, the one algorithm cuDNN fuses the identity activation with (a fused
  /// convolution without ReLU), unless `perf[0, found)` says it cannot run this convolution:
  /// then a cudnn_error with its status, at prepare rather than at the first run.
  static cudnnConvolutionFwdAlgo_t fused_identity_algorithm(const cudnnConvolutionFwdAlgoPerf_t* perf, int found) {
    constexpr auto precomp = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    for (int i = 0; i < found; ++i)
      if (perf[i].algo == precomp && perf[i].status != CUDNN_STATUS_SUCCESS)
        throw cudnn_error(perf[i].status,
                          "fused_identity_algorithm: IMPLICIT_PRECOMP_GEMM, which a convolution with a bias "
                          "and no activation needs, cannot run this convolution",
                          __FILE__, __LINE__);
    return precomp;
  }

 private:
  // At exit the device may already be gone: failed frees are not worth reporting then.
  void release() {
    if (workspace) ignore_status(cudaFree(workspace));
    if (activation) cudnnDestroyActivationDescriptor(activation);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }
};

}  // namespace ein::runtime
