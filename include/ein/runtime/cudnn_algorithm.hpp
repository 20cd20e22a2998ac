// Which algorithm a cuDNN convolution of a plan runs: cuDNN's ranking filtered for the precision
// the plan asked, and for a convolution fused with its bias and activation, the algorithms the
// fused call is tried with. Pure functions over cuDNN's results: tested without a device.
#pragma once

#include <cudnn.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace ein::runtime {

/// Whether forward algorithm `a` computes through a transform of its operands (Winograd, FFT):
/// its rounding error can exceed a direct sum's, and with it the 1e-5 that a plan's tolerance
/// allows a float library call (codegen/precision.hpp).
constexpr bool transforms_operands(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
/// The same for a backward-data algorithm.
constexpr bool transforms_operands(cudnnConvolutionBwdDataAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

/// Whether a convolution under `math` runs no algorithm that transforms its operands:
/// CUDNN_FMA_MATH (the plan asked for full float) and CUDNN_TENSOR_OP_MATH (16-bit data, whose
/// tolerance allows one rounding of the output, not a transform in 16 bits).
constexpr bool excludes_transforms(cudnnMathType_t math) {
  return math == CUDNN_FMA_MATH || math == CUDNN_TENSOR_OP_MATH;
}

/// The algorithms of perf[0, found) (cuDNN's ranking, best first) that a convolution under
/// `math` may run, best first, each once: those cuDNN can run (status success), less those that
/// transform their operands where `math` excludes them (excludes_transforms); those ranked under
/// `math` itself before the others, each group in cuDNN's order.
/// Example: under CUDNN_FMA_MATH, {WINOGRAD, IMPLICIT_PRECOMP_GEMM, FFT, GEMM not supported}
/// gives {IMPLICIT_PRECOMP_GEMM}.
template <class Perf>
auto ranked_algorithms(const Perf* perf, int found, cudnnMathType_t math) -> std::vector<decltype(perf->algo)> {
  std::vector<decltype(perf->algo)> ranked;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < found; ++i) {
      const Perf& p = perf[i];
      if (p.status != CUDNN_STATUS_SUCCESS || (p.mathType == math) != (pass == 0)) continue;
      if (excludes_transforms(math) && transforms_operands(p.algo)) continue;
      if (std::find(ranked.begin(), ranked.end(), p.algo) == ranked.end()) ranked.push_back(p.algo);
    }
  return ranked;
}

/// Whether perf[0, found) lists an algorithm cuDNN can run at all (status success), full float
/// or not: what tells "only Winograd or FFT" from "nothing" when ranked_algorithms gives none.
template <class Perf>
bool any_runnable(const Perf* perf, int found) {
  return std::any_of(perf, perf + std::max(found, 0), [](const Perf& p) { return p.status == CUDNN_STATUS_SUCCESS; });
}

/// The algorithms a convolution fused with its bias and activation tries, in order, with
/// cudnnConvolutionBiasActivationForward at prepare (cuDNN ranks algorithms for the plain call
/// only, and documents no query for the fused one): with ReLU every one of `ranked`; with the
/// identity activation IMPLICIT_PRECOMP_GEMM alone, the one algorithm cuDNN fuses it with, where
/// `ranked` holds it.
inline std::vector<cudnnConvolutionFwdAlgo_t> fused_candidates(const std::vector<cudnnConvolutionFwdAlgo_t>& ranked,
                                                                bool relu) {
  if (relu) return ranked;
  constexpr auto precomp = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  if (std::find(ranked.begin(), ranked.end(), precomp) == ranked.end()) return {};
  return {precomp};
}

/// The first of `candidates` that `accepts`; none where it accepts none.
template <class Algorithm, class Accepts>
std::optional<Algorithm> first_accepted(const std::vector<Algorithm>& candidates, Accepts&& accepts) {
  for (Algorithm a : candidates)
    if (accepts(a)) return a;
  return std::nullopt;
}

/// Whether `status` says that cuDNN does not support a call as given (rather than that the call
/// failed): CUDNN_STATUS_NOT_SUPPORTED, and from cuDNN 9 on each status of its category.
constexpr bool refused(cudnnStatus_t status) {
#if CUDNN_MAJOR >= 9
  return CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED;
#else
  return status == CUDNN_STATUS_NOT_SUPPORTED;
#endif
}

}  // namespace ein::runtime
