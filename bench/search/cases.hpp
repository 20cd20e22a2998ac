// The search benchmark's cases (EinNet Table 3, §7.3): the plain expressions, what counts as
// finding each paper transformation, and the published artifact's search figures beside them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ein/front.hpp"
#include "ein/search/optimize.hpp"
// The rediscovery tests' builders (conv, conv_transpose, g2bmm) and h100(): the benchmark
// searches exactly the expressions those tests check. It includes doctest, which the build
// disables here (DOCTEST_CONFIG_DISABLE): nothing of it is used.
#include "search/rediscover_support.hpp"

namespace search_bench {

using namespace ein;

/// The artifact's figures for one case (docs/paper_cases.md, "Search figures of the artifact", Xeon
/// E5-2680 v4): states and seconds to depth 7 with fingerprints on and off, the first depth at
/// which the expected expression was found, and derivation steps without and with converging
/// derivation.
/// Zero where the artifact has no figure.
struct artifact {
  double states7 = 0, seconds7 = 0;
  double states7_unpruned = 0, seconds7_unpruned = 0;
  int found_depth = 0;
  int steps_without_converge = 0, steps_with_converge = 0;
};

/// One benchmark case: a plain expression and the plan structure the paper derives from it.
struct bench_case {
  std::string name;
  std::string configuration;
  std::string target;  // the paper's transformation, in words
  std::function<ir::scope_ptr()> build;
  std::function<bool(const search::candidate_plan&)> is_target;
  artifact published;
};

/// True when the plan's run-time kernels are, in run order, one `kind` and then one eOperator,
/// e.g. "matmul + eOperator" (weight-only kernels are not counted).
inline bool operator_then_eoperator(const search::expression_plan& p, match::op_kind kind) {
  return p.shape() == std::string(match::name(kind)) + " + eOperator";
}

/// Conv5x5 of the paper at batch 16: NHWC [16,224,224,32], 32 filters 5×5, padding 2. The
/// rediscovery builder is batch 1, so this one comes from the operator library (the same form:
/// its Conv3x3 has the builder's canonical text, which the smoke run checks).
template <std::int64_t N, std::int64_t HW, std::int64_t C, std::int64_t F, std::int64_t K, std::int64_t Pad>
ir::scope_ptr library_conv() {
  constexpr input<"A", float, N, HW, HW, C> a;
  constexpr weight<"K", float, K, K, F, C> k;
  auto p = reify(program(ops::conv2d<"y", ops::nhwc, 1, Pad>(a, k)), "conv");
  return p.definitions.front().value;
}

/// Conv3x3 and Conv1x1 reading the same input (the program-level case of EinNet §4.2, merged
/// into one convolution by padding the 1×1 kernel): NHWC [1,7,7,512], 512 filters each.
inline ir::program conv3x3_conv1x1() {
  constexpr input<"A", float, 1, 7, 7, 512> a;
  constexpr weight<"K3", float, 3, 3, 512, 512> k3;
  constexpr weight<"K1", float, 1, 1, 512, 512> k1;
  return reify(program(ops::conv2d<"y3", ops::nhwc, 1, 1>(a, k3), ops::conv2d<"y1", ops::nhwc, 1, 0>(a, k1)),
               "conv3x3_conv1x1");
}

/// Longformer's band: 8 heads, sequence 10000, 64 features, window 1000 each side
/// (docs/paper_cases.md).
inline constexpr std::int64_t longformer_window = 1000;

/// The cases in report order.
inline std::vector<bench_case> cases() {
  using search_test::conv;
  using search_test::conv_transpose;
  using search_test::g2bmm;
  auto gemm_aggregate = [](const search::candidate_plan& c) {
    return (operator_then_eoperator(c.p, match::op_kind::matmul) ||
            operator_then_eoperator(c.p, match::op_kind::batch_matmul)) &&
           !c.p.kernels.back().flat->summation.empty();
  };
  // Figure 6: a 3×3 convolution with 4× the output channels, then an eOperator summing them.
  auto conv3x3_with_sum = [](const search::candidate_plan& c) {
    if (!operator_then_eoperator(c.p, match::op_kind::conv2d)) return false;
    for (auto& k : c.p.kernels)
      if (k.library() && !k.weight_only) return k.op->conv().r == 3 && k.op->conv().s == 3;
    return false;
  };
  // Figure 14: a G2BMM without dilation between layout transformations.
  auto undilated_g2bmm = [](const search::candidate_plan& c) {
    for (auto& k : c.p.kernels)
      if (k.library() && !k.weight_only && k.op->kind == match::op_kind::g2bmm)
        return k.op->band().dilation == 1 && c.p.run_time_kernels() > 1;
    return false;
  };
  auto g2bmm_case = [&](std::int64_t d, artifact a) {
    return bench_case{"G2BMM-d" + std::to_string(d),
                      "[8,10000,64], W = " + std::to_string(longformer_window) + ", dilation " +
                          std::to_string(d),
                      "G2BMM without dilation between relayouts",
                      [d] { return g2bmm(8, 10000, 64, longformer_window, d); }, undilated_g2bmm, a};
  };
  return {
      {"Conv3x3", "NHWC [1,7,7,512], 512 filters, pad 1", "Matmul + OffsetReduce eOperator",
       [] { return conv(7, 512, 512, 3, 1); },
       [](const search::candidate_plan& c) { return operator_then_eoperator(c.p, match::op_kind::matmul); },
       {157'966, 7.2, 7'080'000, 327, 4, 8, 4}},
      {"ConvTranspose", "NHWC [16,2,2,448], 256 filters 4x4, stride 2, pad 1",
       "GEMM + eOperator aggregating its output", [] { return conv_transpose(16, 2, 448, 256, 4, 2, 1); },
       gemm_aggregate, {901'440, 53.6, 64'000'000, 3834, 6, 12, 6}},
      {"Conv5x5", "NHWC [16,224,224,32], 32 filters, pad 2",
       "Conv3x3 with 4x output channels + summing eOperator", &library_conv<16, 224, 32, 32, 5, 2>,
       conv3x3_with_sum, {2'227'699, 101, 76'700'000, 3695, 7, 11, 7}},
      g2bmm_case(4, {18'286, 0.71, 1'270'000, 73, 4, 7, 4}),
      g2bmm_case(2, {}),
  };
}

}  // namespace search_bench
