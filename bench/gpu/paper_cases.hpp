// The models of the GPU baseline benchmark: EinNet's five operator cases (Table 3, §7.3) at the
// sizes of the paper's artifact (docs/paper_cases.md), one program each, written plainly as a
// user would.
#pragma once

#include "ein/ein.hpp"

namespace bench_cases {
using namespace ein;

inline constexpr var<"n"> n;
inline constexpr var<"h"> h;
inline constexpr var<"w"> w;
inline constexpr var<"f"> f;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"c"> c;

/// Conv3x3 of ResNet-18: NHWC [1, 7, 7, 512], 512 filters, padding 1.
namespace conv3x3 {
inline constexpr input<"A", float, 1, 7, 7, 512> A;
inline constexpr weight<"K", float, 3, 3, 512, 512> K;
inline constexpr auto net = program(ops::conv2d<"y", ops::nhwc, 1, 1>(A, K));
}  // namespace conv3x3

/// ConvTranspose of InfoGAN: NHWC [16, 2, 2, 448] to 256 channels, 4×4, stride 2, padding 1, as
/// the gather over the input pixels that reach each output pixel.
namespace conv_transpose {
inline constexpr input<"T", float, 16, 2, 2, 448> T;
inline constexpr weight<"K", float, 4, 4, 256, 448> K;
inline constexpr auto net = program(def<"y">(over(n, h.in<0, 4>, w.in<0, 4>, f),
                                             sum(i, j, c)(T(n, i, j, c) * K(h - i * 2 + 1, w - j * 2 + 1, f, c))));
}  // namespace conv_transpose

/// Conv5x5 as the artifact runs it: NCHW [16, 32, 224, 224], one 5×5 filter, padding 2.
namespace conv5x5 {
inline constexpr input<"B", float, 16, 32, 224, 224> B;
inline constexpr weight<"K", float, 1, 32, 5, 5> K;
inline constexpr auto net = program(ops::conv2d<"y", ops::nchw, 1, 2>(B, K));
}  // namespace conv5x5

/// Longformer's dilated G2BMM: 8 heads, sequence 10000, 64 features, window 1000 each side,
/// dilation 4.
namespace g2bmm {
inline constexpr input<"Q", float, 8, 10000, 64> Q;
inline constexpr input<"K", float, 8, 10000, 64> K;
inline constexpr auto net = program(ops::g2bmm<"y", 1000, 4>(Q, K));
}  // namespace g2bmm

/// Conv3x3 and Conv1x1 on one input (Figure 3(a)): NHWC [1, 7, 7, 512], 512 filters each.
namespace conv3x3_conv1x1 {
inline constexpr input<"X", float, 1, 7, 7, 512> X;
inline constexpr weight<"K3", float, 3, 3, 512, 512> K3;
inline constexpr weight<"K1", float, 1, 1, 512, 512> K1;
inline constexpr auto net = program(ops::conv2d<"y3", ops::nhwc, 1, 1>(X, K3), ops::conv2d<"y1", ops::nhwc, 1, 0>(X, K1));
}  // namespace conv3x3_conv1x1

}  // namespace bench_cases
