// FSRCNN (Dong et al., 2016) in ein::ops: feature extraction, shrinking, mapping, expanding and a
// transposed convolution that doubles a 32×32 single-channel image; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

/// FSRCNN at batch Batch on a 32×32 luminance image, every channel count but the image's 1 divided
/// by Narrow (Narrow 1: d = 56, s = 12, m = 4, EinNet's configuration): a 5×5 convolution 1 → 56,
/// a 1×1 shrinking to 12, four 3×3 convolutions 12 → 12, a 1×1 expanding to 56, each with bias
/// and PReLU, then a 9×9 transposed convolution 56 → 1 at stride 2, padding 4 and output padding
/// 1 (PyTorch's). Output (Batch, 64, 64, 1).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::fsrcnn<1>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, class T = float>
struct fsrcnn {
  static constexpr std::int64_t d = 56 / Narrow, s = 12 / Narrow;
  static constexpr ein::input<"x", T, Batch, 32, 32, 1> x{};  // (n, h, w, c)
  static constexpr ein::weight<"K1", T, 5, 5, d, 1> K1{};     // (r, s, f, c)
  static constexpr ein::weight<"K2", T, 1, 1, s, d> K2{};
  static constexpr ein::weight<"K3", T, 3, 3, s, s> K3{};
  static constexpr ein::weight<"K4", T, 3, 3, s, s> K4{};
  static constexpr ein::weight<"K5", T, 3, 3, s, s> K5{};
  static constexpr ein::weight<"K6", T, 3, 3, s, s> K6{};
  static constexpr ein::weight<"K7", T, 1, 1, d, s> K7{};
  static constexpr ein::weight<"K8", T, 9, 9, 1, d> K8{};
  static constexpr ein::weight<"b1", T, d> b1{};  // biases
  static constexpr ein::weight<"b2", T, s> b2{};
  static constexpr ein::weight<"b3", T, s> b3{};
  static constexpr ein::weight<"b4", T, s> b4{};
  static constexpr ein::weight<"b5", T, s> b5{};
  static constexpr ein::weight<"b6", T, s> b6{};
  static constexpr ein::weight<"b7", T, d> b7{};
  static constexpr ein::weight<"b8", T, 1> b8{};
  static constexpr ein::weight<"p1", T, d> p1{};  // PReLU slopes
  static constexpr ein::weight<"p2", T, s> p2{};
  static constexpr ein::weight<"p3", T, s> p3{};
  static constexpr ein::weight<"p4", T, s> p4{};
  static constexpr ein::weight<"p5", T, s> p5{};
  static constexpr ein::weight<"p6", T, s> p6{};
  static constexpr ein::weight<"p7", T, d> p7{};

  static constexpr auto a1 = ein::ops::prelu<"a1">(  // feature extraction, (n, 32, 32, d)
      ein::ops::bias_add<"y1">(ein::ops::conv2d<"c1", ein::ops::nhwc, 1, 2>(x, K1), b1), p1);
  static constexpr auto a2 = ein::ops::prelu<"a2">(  // shrinking, (n, 32, 32, s)
      ein::ops::bias_add<"y2">(ein::ops::conv2d<"c2">(a1, K2), b2), p2);
  static constexpr auto a3 = ein::ops::prelu<"a3">(  // mapping
      ein::ops::bias_add<"y3">(ein::ops::conv2d<"c3", ein::ops::nhwc, 1, 1>(a2, K3), b3), p3);
  static constexpr auto a4 = ein::ops::prelu<"a4">(
      ein::ops::bias_add<"y4">(ein::ops::conv2d<"c4", ein::ops::nhwc, 1, 1>(a3, K4), b4), p4);
  static constexpr auto a5 = ein::ops::prelu<"a5">(
      ein::ops::bias_add<"y5">(ein::ops::conv2d<"c5", ein::ops::nhwc, 1, 1>(a4, K5), b5), p5);
  static constexpr auto a6 = ein::ops::prelu<"a6">(
      ein::ops::bias_add<"y6">(ein::ops::conv2d<"c6", ein::ops::nhwc, 1, 1>(a5, K6), b6), p6);
  static constexpr auto a7 = ein::ops::prelu<"a7">(  // expanding, (n, 32, 32, d)
      ein::ops::bias_add<"y7">(ein::ops::conv2d<"c7">(a6, K7), b7), p7);
  static constexpr auto image = ein::ops::bias_add<"image">(  // deconvolution, (n, 64, 64, 1)
      ein::ops::conv_transpose2d<"t8", ein::ops::nhwc, 2, 4, 1>(a7, K8), b8);
  static constexpr auto net = ein::program(image);
};

}  // namespace models
