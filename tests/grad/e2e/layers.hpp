// A small network of every kind of layer, differentiated end to end by ein_generate's GRADIENT:
// a 3×3 convolution with bias and relu, max pooling with padding, a strided convolution with
// batch normalization folded and PReLU, a transposed convolution and sigmoid, global average
// pooling, a fully connected layer and softmax; NHWC.
#pragma once

#include "ein/ein.hpp"

namespace grad_layers {
using namespace ein;
inline constexpr input<"x", float, 2, 8, 8, 3> x;
inline constexpr weight<"K1", float, 3, 3, 6, 3> K1;  // (r, s, f, c)
inline constexpr weight<"b1", float, 6> b1;
inline constexpr weight<"K2", float, 3, 3, 8, 6> K2;
inline constexpr weight<"g2", float, 8> g2;  // batch normalization: scale, shift, mean, variance
inline constexpr weight<"s2", float, 8> s2;
inline constexpr weight<"m2", float, 8> m2;
inline constexpr weight<"v2", float, 8> v2;
inline constexpr weight<"p2", float, 8> p2;  // PReLU slopes
inline constexpr weight<"K3", float, 4, 4, 5, 8> K3;
inline constexpr weight<"W", float, 4, 5> W;  // (out, in)
inline constexpr weight<"b", float, 4> b;
inline constexpr auto a1 = ops::relu<"a1">(ops::bias_add<"y1">(ops::conv2d<"c1", ops::nhwc, 1, 1>(x, K1), b1));  // (2, 8, 8, 6)
inline constexpr auto pool = ops::max_pool2d<"pool", ops::nhwc, 3, 2, 1>(a1);                                   // (2, 4, 4, 6)
inline constexpr auto a2 = ops::prelu<"a2">(ops::conv2d_batch_norm<"y2", ops::nhwc, 2, 1>(pool, K2, g2, s2, m2, v2), p2);  // (2, 2, 2, 8)
inline constexpr auto a3 = ops::sigmoid<"a3">(ops::conv_transpose2d<"t3", ops::nhwc, 2, 1>(a2, K3));  // (2, 4, 4, 5)
inline constexpr auto features = ops::global_avg_pool<"features">(a3);                                   // (2, 5)
inline constexpr auto p = ops::softmax<"p">(ops::linear<"logits">(features, W, b));                     // (2, 4)
inline constexpr auto net = program(p);
}  // namespace grad_layers
