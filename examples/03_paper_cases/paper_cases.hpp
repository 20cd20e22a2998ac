// The model: EinNet's five operator cases (Table 3, §7.3) in one program, written plainly; the
// search finds the paper's transformations (docs/search_benchmark.md). Each case reads its own
// tensors, so they stay independent subprograms. Sizes are the paper's, except Conv5x5 and the
// dilated G2BMM, reduced so that the interpreter checks them in seconds.
#pragma once

#include "ein/ein.hpp"

namespace paper_cases {
using namespace ein;

// 1. Conv3x3 of ResNet-18: NHWC [1, 7, 7, 512], 512 filters, padding 1 → Matmul + OffsetReduce
//    (Figure 5).
inline constexpr input<"A", float, 1, 7, 7, 512> A;
inline constexpr weight<"K", float, 3, 3, 512, 512> K;
inline constexpr auto conv3x3 = ops::conv2d<"conv3x3", ops::nhwc, 1, 1>(A, K);

// 2. ConvTranspose of InfoGAN: NHWC [16, 2, 2, 448] → 256 channels, 4×4, stride 2, padding 1,
//    written as a gather over the input pixels that reach each output pixel (§7.3).
inline constexpr var<"n"> n;
inline constexpr var<"h"> h;
inline constexpr var<"w"> w;
inline constexpr var<"f"> f;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"c"> c;
inline constexpr input<"T", float, 16, 2, 2, 448> T;
inline constexpr weight<"KT", float, 4, 4, 256, 448> KT;
inline constexpr auto conv_transpose =
    def<"conv_transpose">(over(n, h.in<0, 4>, w.in<0, 4>, f),
                          sum(i, j, c)(T(n, i, j, c) * KT(h - i * 2 + 1, w - j * 2 + 1, f, c)));

// 3. Conv5x5 with the paper's 32 channels, batch 2 and 16×16 pixels: padding 2 → Conv3x3 with
//    4× the filters plus an eOperator (Figure 6).
inline constexpr input<"B", float, 2, 16, 16, 32> B;
inline constexpr weight<"K5", float, 5, 5, 32, 32> K5;
inline constexpr auto conv5x5 = ops::conv2d<"conv5x5", ops::nhwc, 1, 2>(B, K5);

// 4. Longformer's dilated G2BMM, [2, 40, 8], half width 4, dilation 2 and 4 (Figure 14).
inline constexpr input<"Q", float, 2, 40, 8> Q;
inline constexpr input<"KQ", float, 2, 40, 8> KQ;
inline constexpr auto g2bmm_d2 = ops::g2bmm<"g2bmm_d2", 4, 2>(Q, KQ);
inline constexpr auto g2bmm_d4 = ops::g2bmm<"g2bmm_d4", 4, 4>(Q, KQ);

// 5. Conv3x3 and Conv1x1 on one input (Figure 3(a)): NHWC [1, 7, 7, 512], 512 filters each →
//    one merged Matmul.
inline constexpr input<"X", float, 1, 7, 7, 512> X;
inline constexpr weight<"K3", float, 3, 3, 512, 512> K3;
inline constexpr weight<"K1", float, 1, 1, 512, 512> K1;
inline constexpr auto y3 = ops::conv2d<"y3", ops::nhwc, 1, 1>(X, K3);
inline constexpr auto y1 = ops::conv2d<"y1", ops::nhwc, 1, 0>(X, K1);

inline constexpr auto net = program(conv3x3, conv_transpose, conv5x5, g2bmm_d2, g2bmm_d4, y3, y1);
}  // namespace paper_cases
