// Small networks in ein::half and ein::bfloat16 (a convolution, a matrix product, ReLU and a
// residual add), for the two-stage test of 16-bit plans through ein_generate.
#pragma once

#include "ein/ein.hpp"

namespace codegen_half {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;

// Every definition in half: each reads half only.
namespace f16 {
inline constexpr input<"X", half, 1, 8, 8, 16> X;   // (n, h, w, c)
inline constexpr weight<"K", half, 3, 3, 16, 16> K; // (r, s, f, c)
inline constexpr input<"A", half, 24, 40> A;
inline constexpr weight<"W", half, 40, 32> W;
inline constexpr auto conv = ops::conv2d<"conv", ops::nhwc, 1, 1>(X, K);
inline constexpr auto net = program(ops::add<"block">(ops::relu<"conv_relu">(conv), X),
                                    ops::relu<"fc">(ops::matmul<"fc_mm">(A, W)));
}  // namespace f16

// The same in bfloat16, with the product's sum stored as float and its ReLU named bfloat16 again.
namespace bf16 {
inline constexpr input<"X", bfloat16, 1, 8, 8, 16> X;
inline constexpr weight<"K", bfloat16, 3, 3, 16, 16> K;
inline constexpr input<"A", bfloat16, 24, 40> A;
inline constexpr weight<"W", bfloat16, 40, 32> W;
inline constexpr auto conv = ops::conv2d<"conv", ops::nhwc, 1, 1>(X, K);
inline constexpr auto fc_mm = def<"fc_mm", float>(over(i, j), sum(k)(A(i, k) * W(k, j)));
inline constexpr auto fc = def<"fc", bfloat16>(over(i, j), relu(fc_mm(i, j)));
inline constexpr auto net = program(ops::add<"block">(ops::relu<"conv_relu">(conv), X), fc);
}  // namespace bf16

// A product in bfloat16, a convolution in half (NHWC, its filter in cuDNN's KRSC) and one in
// bfloat16 (NCHW), large enough to be compute-bound: on cuda, cuBLAS and cuDNN calls that read
// and write 16 bits and accumulate in float.
namespace calls {
inline constexpr input<"A", bfloat16, 128, 256> A;
inline constexpr weight<"W", bfloat16, 256, 128> W;
inline constexpr input<"X", half, 1, 32, 32, 64> X;   // (n, h, w, c)
inline constexpr weight<"K", half, 64, 3, 3, 64> K;   // (f, r, s, c)
inline constexpr input<"Y", bfloat16, 1, 64, 16, 16> Y;   // (n, c, h, w)
inline constexpr weight<"L", bfloat16, 32, 64, 3, 3> L;   // (f, c, r, s)
inline constexpr auto net = program(ops::matmul<"product">(A, W), ops::conv2d<"conv", ops::nhwc, 1, 1, 1, ops::krsc>(X, K),
                                    ops::conv2d<"conv_nchw", ops::nchw, 1, 1>(Y, L));
}  // namespace calls

// A product ending in a bias and ReLU, and a convolution ending in a bias per channel and ReLU,
// compute-bound, in half (`f16`: the convolution NHWC with a KRSC filter) and in bfloat16
// (`bf16`: the product adds a residual too, the convolution NCHW with a KCRS filter): on cuda,
// each is one cuBLASLt call and one cudnnConvolutionBiasActivationForward in 16 bits.
namespace epilogues {
inline constexpr var<"n"> n;
inline constexpr var<"h"> h;
inline constexpr var<"w"> w;
inline constexpr var<"f"> f;
namespace f16 {
inline constexpr input<"A", half, 128, 256> A;
inline constexpr weight<"W", half, 256, 128> W;
inline constexpr weight<"b", half, 128> b;
inline constexpr input<"X", half, 1, 32, 32, 64> X;   // (n, h, w, c)
inline constexpr weight<"K", half, 64, 3, 3, 64> K;   // (f, r, s, c)
inline constexpr weight<"c", half, 64> c;
inline constexpr auto product = ops::matmul<"product">(A, W);
inline constexpr auto fc = def<"fc">(over(i, j), relu(product(i, j) + b(j)));
inline constexpr auto conv = ops::conv2d<"conv", ops::nhwc, 1, 1, 1, ops::krsc>(X, K);
inline constexpr auto block = def<"block">(over(n, h, w, f), relu(conv(n, h, w, f) + c(f)));
inline constexpr auto net = program(fc, block);
}  // namespace f16
namespace bf16 {
inline constexpr input<"A", bfloat16, 128, 256> A;
inline constexpr weight<"W", bfloat16, 256, 128> W;
inline constexpr weight<"b", bfloat16, 128> b;
inline constexpr input<"R", bfloat16, 128, 128> R;
inline constexpr input<"Y", bfloat16, 1, 64, 16, 16> Y;   // (n, c, h, w)
inline constexpr weight<"L", bfloat16, 32, 64, 3, 3> L;   // (f, c, r, s)
inline constexpr weight<"c", bfloat16, 32> c;
inline constexpr auto product = ops::matmul<"product">(A, W);
inline constexpr auto fc = def<"fc">(over(i, j), relu(product(i, j) + b(j) + R(i, j)));
inline constexpr auto conv = ops::conv2d<"conv", ops::nchw, 1, 1>(Y, L);
inline constexpr auto block = def<"block">(over(n, f, h, w), relu(conv(n, f, h, w) + c(f)));
inline constexpr auto net = program(fc, block);
}  // namespace bf16
}  // namespace epilogues

// The half network with its operands' names, generated as written (SEARCH OFF): its own object,
// since a plan belongs to one object.
namespace written {
inline constexpr auto net = program(f16::conv, ops::matmul<"fc_mm">(f16::A, f16::W));
}  // namespace written
}  // namespace codegen_half
