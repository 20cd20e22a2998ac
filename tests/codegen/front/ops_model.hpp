// A model using every operator of ein::ops, for the two-stage test through ein_generate.
// Defining EIN_TEST_CHANGED_MODEL stands for editing the model after its header was generated.
#pragma once

#include "ein/ein.hpp"

namespace codegen_ops {
using namespace ein;
inline constexpr input<"X", float, 2, 7, 6, 3> X;      // (n, h, w, c)
inline constexpr weight<"K", float, 3, 3, 4, 3> K;     // (r, s, f, c)
inline constexpr input<"Xc", float, 1, 3, 6, 5> Xc;    // (n, c, h, w)
inline constexpr weight<"Kc", float, 2, 3, 3, 3> Kc;   // (f, c, r, s)
inline constexpr weight<"Kd", float, 6, 1, 3, 3> Kd;   // (f, c, r, s): depthwise, 2 filters a channel
inline constexpr input<"Xg", float, 1, 4, 6, 5> Xg;    // (n, c, h, w)
inline constexpr weight<"Kg", float, 4, 2, 3, 3> Kg;   // (f, c, r, s): 2 groups of 2 channels
inline constexpr input<"A", double, 5, 6> A;
inline constexpr weight<"B", double, 7, 6> B;
inline constexpr input<"Q", float, 2, 10, 4> Q;
inline constexpr auto g = ops::g2bmm<"g", 2, 3>(Q, Q);  // dilation 3
#if defined(EIN_TEST_CHANGED_MODEL)
inline constexpr auto net = program(ops::conv2d<"y", ops::nhwc, 1, 0>(X, K));
#else
inline constexpr auto net = program(ops::conv2d<"y", ops::nhwc, 1, 1>(X, K),
                                    ops::conv2d<"y2", ops::nhwc, 2, 1, 2>(X, K),
                                    ops::conv2d<"yc", ops::nchw, 1, 1>(Xc, Kc),
                                    ops::depthwise_conv2d<"yd", ops::nchw, 2, 1>(Xc, Kd),
                                    ops::grouped_conv2d<"yg", 2, ops::nchw, 1, 1>(Xg, Kg),
                                    ops::conv_transpose2d<"t", ops::nhwc, 2, 1>(X, K),
                                    ops::matmul<"mm", ops::trans_b>(A, B),
                                    ops::batch_matmul<"bm", ops::trans_b>(Q, ops::relu<"qr">(Q)),
                                    ops::relu<"e">(ops::mul<"s">(ops::gbmm<"gb", 2, 3>(g, Q), Q)),
                                    ops::add<"sum">(Q, Q));
#endif
}  // namespace codegen_ops
