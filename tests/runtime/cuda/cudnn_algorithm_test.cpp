// Which algorithm a cuDNN convolution of a plan runs, over cuDNN's ranked results (no device
// needed): full float and 16-bit data leave out Winograd and FFT, a fused convolution tries what
// the fused call may take, and a convolution nothing may run fails with a message saying why.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ein/runtime/cudnn.hpp"

namespace cudnn_algorithm_test {

using namespace ein::runtime;

cudnnConvolutionFwdAlgoPerf_t forward(cudnnConvolutionFwdAlgo_t a, cudnnStatus_t status = CUDNN_STATUS_SUCCESS,
                                      cudnnMathType_t math = CUDNN_FMA_MATH) {
  cudnnConvolutionFwdAlgoPerf_t p{};
  p.algo = a;
  p.status = status;
  p.mathType = math;
  return p;
}

cudnnConvolutionBwdDataAlgoPerf_t backward(cudnnConvolutionBwdDataAlgo_t a, cudnnMathType_t math = CUDNN_FMA_MATH) {
  cudnnConvolutionBwdDataAlgoPerf_t p{};
  p.algo = a;
  p.status = CUDNN_STATUS_SUCCESS;
  p.mathType = math;
  return p;
}

constexpr auto implicit = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
constexpr auto precomp = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr auto gemm = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
constexpr auto winograd = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
constexpr auto winograd_nonfused = CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
constexpr auto fft = CUDNN_CONVOLUTION_FWD_ALGO_FFT;
constexpr auto fft_tiling = CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING;

using forward_list = std::vector<cudnnConvolutionFwdAlgo_t>;

TEST_CASE("cuDNN algorithms: full float runs no Winograd or FFT algorithm, whatever cuDNN ranks first") {
  const cudnnConvolutionFwdAlgoPerf_t perf[] = {forward(winograd), forward(fft_tiling), forward(precomp),
                                                forward(winograd_nonfused), forward(fft), forward(implicit),
                                                forward(gemm, CUDNN_STATUS_NOT_SUPPORTED)};
  CHECK(ranked_algorithms(perf, 7, CUDNN_FMA_MATH) == forward_list{precomp, implicit});
  // nor does 16-bit data (CUDNN_TENSOR_OP_MATH): its tolerance allows one rounding, not a transform
  CHECK(ranked_algorithms(perf, 7, CUDNN_TENSOR_OP_MATH) == forward_list{precomp, implicit});
  CHECK(!excludes_transforms(CUDNN_DEFAULT_MATH));
  // where TF32 is allowed (CUDNN_DEFAULT_MATH) every runnable algorithm is, ranked under that math first
  CHECK(ranked_algorithms(perf, 7, CUDNN_DEFAULT_MATH) ==
        forward_list{winograd, fft_tiling, precomp, winograd_nonfused, fft, implicit});
  CHECK(cudnn_convolution::choose(ranked_algorithms(perf, 7, CUDNN_FMA_MATH), perf, 7, CUDNN_FMA_MATH) == precomp);
  // the backward-data algorithms alike
  const cudnnConvolutionBwdDataAlgoPerf_t back[] = {backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED),
                                                    backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING),
                                                    backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1),
                                                    backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT),
                                                    backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD),
                                                    backward(CUDNN_CONVOLUTION_BWD_DATA_ALGO_0)};
  CHECK(ranked_algorithms(back, 6, CUDNN_FMA_MATH) ==
        std::vector{CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0});
  for (auto a : {winograd, winograd_nonfused, fft, fft_tiling}) CHECK(transforms_operands(a));
  for (auto a : {implicit, precomp, gemm, CUDNN_CONVOLUTION_FWD_ALGO_DIRECT}) CHECK(!transforms_operands(a));
}

TEST_CASE("cuDNN algorithms: ranked under the plan's math first, each once, in cuDNN's order") {
  const cudnnConvolutionFwdAlgoPerf_t perf[] = {forward(implicit, CUDNN_STATUS_SUCCESS, CUDNN_TENSOR_OP_MATH),
                                                forward(gemm), forward(implicit), forward(precomp),
                                                forward(precomp, CUDNN_STATUS_SUCCESS, CUDNN_TENSOR_OP_MATH)};
  CHECK(ranked_algorithms(perf, 5, CUDNN_FMA_MATH) == forward_list{gemm, implicit, precomp});
  CHECK(ranked_algorithms(perf, 5, CUDNN_TENSOR_OP_MATH) == forward_list{implicit, precomp, gemm});
  // only the first `found` results count
  CHECK(ranked_algorithms(perf, 2, CUDNN_FMA_MATH) == forward_list{gemm, implicit});
  CHECK(ranked_algorithms(perf, 0, CUDNN_FMA_MATH).empty());
}

TEST_CASE("cuDNN algorithms: a convolution nothing may run fails, saying whether full float excluded what cuDNN runs") {
  const cudnnConvolutionFwdAlgoPerf_t transforms[] = {forward(winograd), forward(fft),
                                                      forward(implicit, CUDNN_STATUS_NOT_SUPPORTED)};
  const auto ranked = ranked_algorithms(transforms, 3, CUDNN_FMA_MATH);
  CHECK(ranked.empty());
  CHECK_THROWS_WITH_AS(cudnn_convolution::choose(ranked, transforms, 3, CUDNN_FMA_MATH),
                       doctest::Contains("only with Winograd or FFT algorithms, which full float"), cudnn_error);
  CHECK_THROWS_WITH_AS(cudnn_convolution::choose(ranked_algorithms(transforms, 3, CUDNN_TENSOR_OP_MATH), transforms, 3,
                                                 CUDNN_TENSOR_OP_MATH),
                       doctest::Contains("16-bit convolution only with Winograd or FFT"), cudnn_error);
  const cudnnConvolutionFwdAlgoPerf_t none[] = {forward(implicit, CUDNN_STATUS_NOT_SUPPORTED)};
  CHECK_THROWS_WITH_AS(cudnn_convolution::choose(ranked_algorithms(none, 1, CUDNN_FMA_MATH), none, 1, CUDNN_FMA_MATH),
                       doctest::Contains("no runnable algorithm"), cudnn_error);
}

TEST_CASE("cuDNN algorithms: a fused convolution tries every ranked algorithm with ReLU, PRECOMP_GEMM alone without") {
  const forward_list ranked{implicit, precomp, gemm};
  CHECK(fused_candidates(ranked, true) == ranked);
  CHECK(fused_candidates(ranked, false) == forward_list{precomp});
  CHECK(fused_candidates(forward_list{implicit, gemm}, false).empty());
  // the first the fused call takes; none: the plain calls instead
  CHECK(first_accepted(ranked, [](auto a) { return a != implicit; }) == precomp);
  CHECK(first_accepted(ranked, [](auto) { return true; }) == implicit);
  CHECK(!first_accepted(ranked, [](auto) { return false; }));
  CHECK(!first_accepted(forward_list{}, [](auto) { return true; }));
}

TEST_CASE("cuDNN descriptors: 16-bit data is half or bfloat16 under tensor-op math, whatever TF32 says") {
  convolution_geometry g;
  for (bool tf32 : {false, true}) {
    g.tf32 = tf32;
    g.type = element_type::f16;
    CHECK(cudnn_convolution::math_type(g) == CUDNN_TENSOR_OP_MATH);
    g.type = element_type::bf16;
    CHECK(cudnn_convolution::math_type(g) == CUDNN_TENSOR_OP_MATH);
    g.type = element_type::f32;
    CHECK(cudnn_convolution::math_type(g) == (tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  }
  CHECK(cudnn_convolution::data_type(element_type::f32) == CUDNN_DATA_FLOAT);
  CHECK(cudnn_convolution::data_type(element_type::f64) == CUDNN_DATA_DOUBLE);
  CHECK(cudnn_convolution::data_type(element_type::f16) == CUDNN_DATA_HALF);
  CHECK(cudnn_convolution::data_type(element_type::bf16) == CUDNN_DATA_BFLOAT16);
}

TEST_CASE("cuDNN algorithms: a refusal is told from a failure") {
  CHECK(refused(CUDNN_STATUS_NOT_SUPPORTED));
  CHECK(!refused(CUDNN_STATUS_SUCCESS));
  CHECK(!refused(CUDNN_STATUS_BAD_PARAM));
  CHECK(!refused(CUDNN_STATUS_EXECUTION_FAILED));
#if CUDNN_MAJOR >= 9
  CHECK(refused(CUDNN_STATUS_NOT_SUPPORTED_SHAPE));
  CHECK(refused(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT));
  CHECK(!refused(CUDNN_STATUS_INTERNAL_ERROR));
#endif
}

}  // namespace cudnn_algorithm_test
