// The model: the 3×3 convolution of ResNet-18 (EinNet Table 3), NHWC input [1, 7, 7, 512],
// 512 filters, padding 1 (reads outside the input are zero), stride 1.
#pragma once

#include "ein/ein.hpp"

namespace conv3x3 {
using namespace ein;
inline constexpr var<"n"> n;
inline constexpr var<"h"> h;
inline constexpr var<"w"> w;
inline constexpr var<"f"> f;
inline constexpr var<"r"> r;
inline constexpr var<"s"> s;
inline constexpr var<"c"> c;
inline constexpr input<"A", float, 1, 7, 7, 512> A;         // (n, h, w, c)
inline constexpr weight<"K", float, 3, 3, 512, 512> K;      // (r, s, f, c)
inline constexpr auto conv = def<"conv">(over(n, h.in<0, 7>, w.in<0, 7>, f),
                                         sum(r, s, c)(A(n, h + r - 1, w + s - 1, c) * K(r, s, f, c)));
inline constexpr auto net = program(conv);  // (n, h, w, f)
}  // namespace conv3x3
