// cuDNN support of generated CUDA plans: status checks, the handle a plan keeps and the state of
// one convolution step (descriptors, math type, algorithm and workspace, set up once).
#pragma once

#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ein/runtime/convolution_geometry.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cudnn_algorithm.hpp"
#include "ein/runtime/resource_owner.hpp"

namespace ein::runtime {

/// A failed cuDNN call: says which call, where, cuDNN's text for the status and, from cuDNN 9 on,
/// cuDNN's own account of the last error (cudnnGetLastErrorString).
class cudnn_error : public call_error<cudnnStatus_t> {
 public:
  cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line)
      : call_error(status, "cuDNN", call, file, line, cudnnGetErrorString(status) + last_error()) {}

 private:
  static std::string last_error() {
#if CUDNN_MAJOR >= 9
    char text[1024] = {};
    cudnnGetLastErrorString(text, sizeof text);
    if (text[0]) return std::string(" (") + text + ")";
#endif
    return {};
  }
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
class cudnn_handle : resource_owner {
 public:
  cudnn_handle() { EIN_CUDNN_CHECK(cudnnCreate(&handle_)); }
  /// A handle bound for good to `stream`: a plan's runs then set no stream on it. (The
  /// delegated constructor has made the object: the destructor destroys the handle on a throw.)
  explicit cudnn_handle(cudaStream_t stream) : cudnn_handle() { EIN_CUDNN_CHECK(cudnnSetStream(handle_, stream)); }
  // At exit the device may already be gone: a failed destroy is not worth reporting then.
  ~cudnn_handle() { cudnnDestroy(handle_); }
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

/// How a convolution chooses its algorithm: the first of cuDNN's heuristics (…Algorithm_v7,
/// instant; what plans do) or the fastest that cuDNN measures on the device
/// (cudnnFind…Algorithm, which runs every algorithm; what the GPU baseline benchmark does). Either
/// is taken from ranked_algorithms: in full float, no Winograd or FFT.
enum class algorithm_choice : unsigned char { heuristic, fastest };

/// What one convolution step of a plan keeps between runs: its descriptors, the algorithm and
/// the workspace, set up for a geometry on a handle. A plan keeps one per step, device, stream and
/// thread (runtime::per_stream: set up by its prepare() or its first run there); the measured
/// cost model times the same.
class cudnn_convolution : resource_owner {
 public:
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t forward_algo{};  // for cudnnConvolutionForward
  cudnnConvolutionBwdDataAlgo_t backward_data_algo{};
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  cudnnTensorDescriptor_t bias = nullptr;             // a fused convolution's: 1 × k × 1 × 1
  cudnnActivationDescriptor_t activation = nullptr;   // a fused convolution's: ReLU or identity
  /// A fused convolution's: whether cudnnConvolutionBiasActivationForward took `fused_algo` when
  /// tried at prepare; where it took none, forward_bias_activation() makes three calls.
  bool fused_call = false;
  cudnnConvolutionFwdAlgo_t fused_algo{};

  /// Sets the descriptors and the math type, takes the first algorithm of ranked_algorithms over
  /// what `choice` ranks and allocates its workspace; for a fused geometry, also tries the fused
  /// call with its candidates (fused_candidates) on scratch operands, now rather than at the first
  /// run. Throws cudnn_error (CUDNN_STATUS_NOT_SUPPORTED) when no algorithm may run.
  cudnn_convolution(cudnnHandle_t handle, const convolution_geometry& g,
                    algorithm_choice choice = algorithm_choice::heuristic)
      : f64_(g.type == element_type::f64), relu_(g.relu) {
    const release_on_throw undo([this] { release(); });
    EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    EIN_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    EIN_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    const cudnnDataType_t data = data_type(g.type);
    EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(x, data, 4, g.x_dims, g.x_strides));
    EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(y, data, 4, g.y_dims, g.y_strides));
    EIN_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, data, g.krsc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, g.filter[0],
                                               g.filter[1], g.filter[2], g.filter[3]));
    EIN_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, g.pad[0], g.pad[1], g.stride[0], g.stride[1], g.dilation[0],
                                                    g.dilation[1], CUDNN_CROSS_CORRELATION,
                                                    f64_ ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT));
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
      const auto ranked = ranked_algorithms(perf, found, math);
      forward_algo = choose(ranked, perf, found, math);
      EIN_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, forward_algo, &bytes));
      if (g.fused) {
        describe_epilogue(g, data);
        reserve_workspace(bytes);
        std::unique_ptr<trial_operands> trial;  // made by the first trial
        const auto taken = first_accepted(fused_candidates(ranked, g.relu), [&](cudnnConvolutionFwdAlgo_t a) {
          return fused_call_takes(handle, g, a, trial);
        });
        fused_call = taken.has_value();
        if (taken) fused_algo = *taken;
        bytes = workspace_size;
      }
    } else {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      int found = 0;
      if (choice == algorithm_choice::heuristic)
        EIN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
            handle, w, y, conv, x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
      else
        EIN_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithm(handle, w, y, conv, x,
                                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
      backward_data_algo = choose(ranked_algorithms(perf, found, math), perf, found, math);
      EIN_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, w, y, conv, x, backward_data_algo, &bytes));
    }
    reserve_workspace(bytes);
  }
  ~cudnn_convolution() { release(); }

  /// CUDNN_TENSOR_OP_MATH for half and bfloat16 data (tensor cores, float accumulation: the
  /// compute type is float); for float, CUDNN_DEFAULT_MATH where TF32 is allowed (cuDNN then may
  /// use tensor cores), else CUDNN_FMA_MATH: on Ampere and later the default lets cuDNN round
  /// float operands to TF32.
  static cudnnMathType_t math_type(const convolution_geometry& g) {
    if (g.type == element_type::f16 || g.type == element_type::bf16) return CUDNN_TENSOR_OP_MATH;
    return g.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  }

  /// cuDNN's data type of element type `t`.
  static cudnnDataType_t data_type(element_type t) {
    switch (t) {
      case element_type::f64: return CUDNN_DATA_DOUBLE;
      case element_type::f16: return CUDNN_DATA_HALF;
      case element_type::bf16: return CUDNN_DATA_BFLOAT16;
      case element_type::f32: break;
    }
    return CUDNN_DATA_FLOAT;
  }

  /// The first of `ranked` (ranked_algorithms of perf[0, found) under `math`), or a cudnn_error
  /// (CUDNN_STATUS_NOT_SUPPORTED) saying whether cuDNN can run nothing or only algorithms that
  /// full float or 16-bit data excludes.
  template <class Algorithm, class Perf>
  static Algorithm choose(const std::vector<Algorithm>& ranked, const Perf* perf, int found, cudnnMathType_t math) {
    if (!ranked.empty()) return ranked.front();
    const bool only_transforms = excludes_transforms(math) && any_runnable(perf, found);
    throw cudnn_error(CUDNN_STATUS_NOT_SUPPORTED,
                      !only_transforms ? "choose: cuDNN has no runnable algorithm for this convolution"
                      : math == CUDNN_FMA_MATH
                          ? "choose: cuDNN runs this convolution only with Winograd or FFT algorithms, "
                            "which full float (CUDNN_FMA_MATH, no TF32) excludes"
                          : "choose: cuDNN runs this 16-bit convolution only with Winograd or FFT algorithms, "
                            "which its tolerance (one rounding of the output) excludes",
                      __FILE__, __LINE__);
  }

  /// y = activation(alpha · conv(x, w) + alpha2 · z + bias) on `handle`'s stream, the scalars
  /// in the data's type: one cudnnConvolutionBiasActivationForward where it took fused_algo at
  /// prepare (and takes it now: pointers less aligned than prepare's may be refused), else
  /// cudnnConvolutionForward, cudnnAddTensor for z (unless z is y) and the bias, and
  /// cudnnActivationForward for ReLU.
  /// @pre the state was made from a fused geometry.
  void forward_bias_activation(cudnnHandle_t handle, const void* alpha, const void* x_data, const void* w_data,
                               const void* alpha2, const void* z_data, const void* bias_data, void* y_data) const {
    if (fused_call) {
      const cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
          handle, alpha, x, x_data, w, w_data, conv, fused_algo, workspace, workspace_size, alpha2, y, z_data, bias,
          bias_data, activation, y, y_data);
      if (!refused(status)) {
        cudnn_check(status, "cudnnConvolutionBiasActivationForward", __FILE__, __LINE__);
        return;
      }
    }
    // z as y's old value where it is y (beta = alpha2), else added afterwards
    const bool z_is_y = z_data == y_data;
    EIN_CUDNN_CHECK(cudnnConvolutionForward(handle, alpha, x, x_data, w, w_data, conv, forward_algo, workspace,
                                            workspace_size, z_is_y ? alpha2 : zero(), y, y_data));
    if (!z_is_y) EIN_CUDNN_CHECK(cudnnAddTensor(handle, alpha2, y, z_data, one(), y, y_data));
    EIN_CUDNN_CHECK(cudnnAddTensor(handle, one(), bias, bias_data, one(), y, y_data));
    if (relu_) EIN_CUDNN_CHECK(cudnnActivationForward(handle, activation, one(), y, y_data, zero(), y, y_data));
  }

 private:
  // 1 and 0 as cuDNN reads its scalars: double for double data, else float (16-bit data too).
  static constexpr double one_d = 1, zero_d = 0;
  static constexpr float one_f = 1, zero_f = 0;
  const void* one() const { return f64_ ? static_cast<const void*>(&one_d) : &one_f; }
  const void* zero() const { return f64_ ? static_cast<const void*>(&zero_d) : &zero_f; }

  // The bias descriptor (1 × k × 1 × 1) and the activation of a fused geometry.
  void describe_epilogue(const convolution_geometry& g, cudnnDataType_t data) {
    const int k = g.y_dims[1], dims[4] = {1, k, 1, 1}, strides[4] = {k, 1, 1, 1};
    EIN_CUDNN_CHECK(cudnnCreateTensorDescriptor(&bias));
    EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(bias, data, 4, dims, strides));
    EIN_CUDNN_CHECK(cudnnCreateActivationDescriptor(&activation));
    EIN_CUDNN_CHECK(cudnnSetActivationDescriptor(
        activation, g.relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  }

  // A workspace of at least `bytes` (it only grows).
  void reserve_workspace(std::size_t bytes) {
    if (bytes <= workspace_size) return;
    if (workspace) ignore_status(cudaFree(workspace));
    workspace = nullptr;
    workspace_size = 0;
    EIN_CUDA_CHECK(cudaMalloc(&workspace, bytes));
    workspace_size = bytes;
  }

  // Scratch operands of a geometry for the fused call's trials, zeroed on the handle's stream.
  struct trial_operands : resource_owner {
    cudaStream_t stream = nullptr;
    void *x = nullptr, *w = nullptr, *y = nullptr, *bias = nullptr;
    trial_operands(cudnnHandle_t handle, const convolution_geometry& g) {
      const release_on_throw undo([this] { free(); });
      EIN_CUDNN_CHECK(cudnnGetStream(handle, &stream));
      const std::size_t element = element_bytes(g.type);
      const auto extent = [](const int* dims, const int* strides) {
        std::size_t n = 1;
        for (int d = 0; d < 4; ++d) n += static_cast<std::size_t>(dims[d] - 1) * static_cast<std::size_t>(strides[d]);
        return n;
      };
      const std::size_t filter = static_cast<std::size_t>(g.filter[0]) * g.filter[1] * g.filter[2] * g.filter[3];
      for (auto [p, n] :
           {std::pair{&x, extent(g.x_dims, g.x_strides)}, std::pair{&w, filter},
            std::pair{&y, extent(g.y_dims, g.y_strides)}, std::pair{&bias, static_cast<std::size_t>(g.y_dims[1])}}) {
        EIN_CUDA_CHECK(cudaMalloc(p, n * element));
        EIN_CUDA_CHECK(cudaMemsetAsync(*p, 0, n * element, stream));
      }
    }
    ~trial_operands() { free(); }
    // After the work queued on them: the stream first.
    void free() noexcept {
      ignore_status(cudaStreamSynchronize(stream));
      for (void* p : {x, w, y, bias})
        if (p) ignore_status(cudaFree(p));
    }
  };

  // Whether cudnnConvolutionBiasActivationForward runs this convolution with `algo`: tried on
  // zeroed scratch operands of the geometry's shapes (`trial`, made on first use) on the handle's
  // stream, the workspace grown to what `algo` needs. A refusal (refused()) is a no; any other
  // failure throws.
  bool fused_call_takes(cudnnHandle_t handle, const convolution_geometry& g, cudnnConvolutionFwdAlgo_t algo,
                        std::unique_ptr<trial_operands>& trial) {
    std::size_t bytes = 0;
    const cudnnStatus_t sized = cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algo, &bytes);
    if (refused(sized)) return false;
    EIN_CUDNN_CHECK(sized);
    reserve_workspace(bytes);
    if (!trial) trial = std::make_unique<trial_operands>(handle, g);
    const cudnnStatus_t status = cudnnConvolutionBiasActivationForward(
        handle, one(), x, trial->x, w, trial->w, conv, algo, workspace, workspace_size, zero(), y, trial->y, bias,
        trial->bias, activation, y, trial->y);
    if (refused(status)) return false;
    EIN_CUDNN_CHECK(status);
    EIN_CUDA_CHECK(cudaStreamSynchronize(trial->stream));
    return true;
  }

  // At exit the device may already be gone: failed frees are not worth reporting then.
  void release() noexcept {
    if (workspace) ignore_status(cudaFree(workspace));
    if (activation) cudnnDestroyActivationDescriptor(activation);
    if (bias) cudnnDestroyTensorDescriptor(bias);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
  }

  bool f64_ = false, relu_ = false;
};

}  // namespace ein::runtime
