// Models shared by the front-end tests and the nvcc check: the conv3x3 example, a program using
// the operators of ein::ops, and one using its network operators and max and min, with their
// keys (the same on every compiler).
#pragma once

#include "ein/front.hpp"

namespace conv3x3 {
using namespace ein;
inline constexpr var<"n"> n;
inline constexpr var<"h"> h;
inline constexpr var<"w"> w;
inline constexpr var<"f"> f;
inline constexpr var<"r"> r;
inline constexpr var<"s"> s;
inline constexpr var<"c"> c;
inline constexpr input<"A", float, 1, 7, 7, 512> A;
inline constexpr weight<"K", float, 3, 3, 512, 512> K;
inline constexpr auto conv = def<"conv">(over(n, h.in<0, 7>, w.in<0, 7>, f),
                                         sum(r, s, c)(A(n, h + r - 1, w + s - 1, c) * K(r, s, f, c)));
inline constexpr auto out = def<"out">(over(n, h, w, f), relu(conv(n, h, w, f)));
inline constexpr auto net = program(out);
}  // namespace conv3x3

namespace operators {
using namespace ein;
inline constexpr input<"X", float, 2, 9, 9, 8> X;
inline constexpr weight<"K", float, 3, 3, 4, 8> K;
inline constexpr input<"Xc", float, 2, 8, 9, 9> Xc;
inline constexpr weight<"Kc", float, 4, 8, 3, 3> Kc;
inline constexpr input<"A", double, 5, 6> A;
inline constexpr input<"B", double, 7, 6> B;
inline constexpr input<"Q", float, 2, 10, 4> Q;
inline constexpr auto g = ops::g2bmm<"g", 2, 2>(Q, Q);
inline constexpr auto net = program(ops::conv2d<"y", ops::nhwc, 2, 1, 2>(X, K),
                                    ops::conv2d<"yc", ops::nchw, 1, 1>(Xc, Kc),
                                    ops::conv_transpose2d<"t", ops::nhwc, 2, 1>(X, K),
                                    ops::matmul<"mm", ops::trans_b>(A, B),
                                    ops::batch_matmul<"bm", ops::trans_b>(Q, ops::relu<"qt">(Q)),
                                    ops::relu<"e">(ops::mul<"s">(ops::gbmm<"gb", 2, 2>(g, Q), Q)));
}  // namespace operators

// Each network operator and max and min once, over tensors: nvcc's front end takes time
// exponential in the depth of a chain of pooled definitions (a chain of five takes over a
// minute), so the deep network of network_model.hpp is checked by the host compilers only.
namespace shallow {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr input<"X", float, 2, 8, 8, 3> X;
inline constexpr input<"Y", float, 2, 5> Y;
inline constexpr weight<"K", float, 3, 3, 3, 4> K;  // (r, s, c, f)
inline constexpr weight<"G", float, 4> G;
inline constexpr weight<"W", float, 6, 5> W;
inline constexpr weight<"Wb", float, 6> Wb;
inline constexpr auto net = program(
    ops::conv2d_batch_norm<"conv", ops::nhwc, 1, ops::hw{1, 0}, 1, ops::rscf>(X, K, G, G, G, G),
    ops::max_pool2d<"pool", ops::nhwc, 3, 2, 1>(X), ops::avg_pool2d<"avg", ops::nchw, 2>(X),
    ops::global_avg_pool<"g">(X), ops::softmax<"p">(Y), ops::linear<"fc">(Y, W, Wb), ops::flatten<"flat">(X),
    def<"lo">(over(i), min(j)(Y(i, j))), def<"hi">(over(i, j), max(Y(i, j), 0.5)));
}  // namespace shallow

// Keys computed by g++ and clang; nvcc_front.cu checks that nvcc computes the same ones.
inline constexpr std::uint64_t conv3x3_key = 0xee4b26212cc81d8aULL;
inline constexpr std::uint64_t operators_key = 0x15940cf4debf62a1ULL;
inline constexpr std::uint64_t shallow_key = 0xa0d8f20f40dd7f86ULL;
