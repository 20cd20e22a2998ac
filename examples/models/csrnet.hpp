// CSRNet's back-end (Li et al., 2018) in ein::ops: six 3×3 convolutions at dilation 2 with bias
// and ReLU over VGG-16's 14×14 feature map; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

/// CSRNet's dilated back-end at batch Batch on a (Batch, 14, 14, 512) feature map, every channel
/// count divided by Narrow (Narrow 1: EinNet's configuration): 512 → 512 → 512 → 512 → 256 →
/// 128 → 64, each a 3×3 convolution at dilation 2 and padding 2 with bias and ReLU. Output
/// (Batch, 14, 14, 64 / Narrow).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::csrnet<16>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, class T = float>
struct csrnet {
  static constexpr std::int64_t c0 = 512 / Narrow, c4 = 256 / Narrow, c5 = 128 / Narrow, c6 = 64 / Narrow;
  static constexpr ein::input<"x", T, Batch, 14, 14, c0> x{};  // (n, h, w, c)
  static constexpr ein::weight<"K1", T, 3, 3, c0, c0> K1{};    // (r, s, f, c)
  static constexpr ein::weight<"K2", T, 3, 3, c0, c0> K2{};
  static constexpr ein::weight<"K3", T, 3, 3, c0, c0> K3{};
  static constexpr ein::weight<"K4", T, 3, 3, c4, c0> K4{};
  static constexpr ein::weight<"K5", T, 3, 3, c5, c4> K5{};
  static constexpr ein::weight<"K6", T, 3, 3, c6, c5> K6{};
  static constexpr ein::weight<"b1", T, c0> b1{};
  static constexpr ein::weight<"b2", T, c0> b2{};
  static constexpr ein::weight<"b3", T, c0> b3{};
  static constexpr ein::weight<"b4", T, c4> b4{};
  static constexpr ein::weight<"b5", T, c5> b5{};
  static constexpr ein::weight<"b6", T, c6> b6{};

  // Stride 1, padding 2, dilation 2: every layer keeps 14×14.
  static constexpr auto a1 = ein::ops::relu<"a1">(
      ein::ops::bias_add<"y1">(ein::ops::conv2d<"c1", ein::ops::nhwc, 1, 2, 2>(x, K1), b1));
  static constexpr auto a2 = ein::ops::relu<"a2">(
      ein::ops::bias_add<"y2">(ein::ops::conv2d<"c2", ein::ops::nhwc, 1, 2, 2>(a1, K2), b2));
  static constexpr auto a3 = ein::ops::relu<"a3">(
      ein::ops::bias_add<"y3">(ein::ops::conv2d<"c3", ein::ops::nhwc, 1, 2, 2>(a2, K3), b3));
  static constexpr auto a4 = ein::ops::relu<"a4">(
      ein::ops::bias_add<"y4">(ein::ops::conv2d<"c4", ein::ops::nhwc, 1, 2, 2>(a3, K4), b4));
  static constexpr auto a5 = ein::ops::relu<"a5">(
      ein::ops::bias_add<"y5">(ein::ops::conv2d<"c5", ein::ops::nhwc, 1, 2, 2>(a4, K5), b5));
  static constexpr auto density = ein::ops::relu<"density">(
      ein::ops::bias_add<"y6">(ein::ops::conv2d<"c6", ein::ops::nhwc, 1, 2, 2>(a5, K6), b6));
  static constexpr auto net = ein::program(density);
};

}  // namespace models
