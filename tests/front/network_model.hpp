// A network of the operators of ein::ops chained as a model chains them (folded convolution,
// PReLU, pooling, linear, max and min, softmax), with its key as g++ and clang compute it.
#pragma once

#include "ein/front.hpp"

namespace network {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr input<"X", float, 2, 8, 8, 3> X;
inline constexpr weight<"K", float, 3, 3, 3, 4> K;  // (r, s, c, f)
inline constexpr weight<"G", float, 4> G;
inline constexpr weight<"B", float, 4> B;
inline constexpr weight<"M", float, 4> M;
inline constexpr weight<"V", float, 4> V;
inline constexpr weight<"W", float, 5, 8> W;
inline constexpr weight<"Wb", float, 5> Wb;
inline constexpr auto conv = ops::conv2d_batch_norm<"conv", ops::nhwc, 1, ops::hw{1, 0}, 1, ops::rscf>(X, K, G, B, M, V);
inline constexpr auto act = ops::prelu<"act">(conv, G);
inline constexpr auto pool = ops::max_pool2d<"pool", ops::nhwc, 3, 2, 1>(act);
inline constexpr auto avg = ops::avg_pool2d<"avg", ops::nhwc, 2>(pool);
inline constexpr auto th = ops::tanh<"th">(avg);
inline constexpr auto flat = ops::flatten<"flat">(th);
inline constexpr auto fc = ops::linear<"fc">(flat, W, Wb);
inline constexpr auto lo = def<"lo">(over(i), min(j)(fc(i, j)));
inline constexpr auto hi = def<"hi">(over(i, j), max(fc(i, j), lo(i)));
inline constexpr auto p = ops::softmax<"p">(hi);
inline constexpr auto sg = ops::sigmoid<"sg">(pool);
inline constexpr auto net = program(p, ops::global_avg_pool<"g">(sg));
}  // namespace network

inline constexpr std::uint64_t network_key = 0x0d86595726a29cecULL;
