// InfoGAN's generator (Chen et al., 2016) as EinNet's artifact runs it, in ein::ops: a 228-d
// code through five transposed convolutions with ReLU between, to a 32×32 RGB image in tanh; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

/// InfoGAN's generator at batch Batch, every channel count but the image's 3 divided by Narrow
/// (Narrow 1 is the configuration of EinNet's artifact): 228 → 448 (2×2, stride 1, padding 0) →
/// 256 → 128 → 64 → 3 (4×4, stride 2, padding 1 each), ReLU between layers, tanh last. Output
/// (Batch, 32, 32, 3).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::infogan<16>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, class T = float>
struct infogan {
  static constexpr std::int64_t c0 = 228 / Narrow, c1 = 448 / Narrow, c2 = 256 / Narrow, c3 = 128 / Narrow,
                                c4 = 64 / Narrow;
  static constexpr ein::input<"z", T, Batch, 1, 1, c0> z{};  // (n, h, w, c)
  static constexpr ein::weight<"K1", T, 2, 2, c1, c0> K1{};  // (r, s, f, c)
  static constexpr ein::weight<"K2", T, 4, 4, c2, c1> K2{};
  static constexpr ein::weight<"K3", T, 4, 4, c3, c2> K3{};
  static constexpr ein::weight<"K4", T, 4, 4, c4, c3> K4{};
  static constexpr ein::weight<"K5", T, 4, 4, 3, c4> K5{};

  static constexpr auto a1 = ein::ops::relu<"a1">(ein::ops::conv_transpose2d<"t1", ein::ops::nhwc, 1, 0>(z, K1));   // (n, 2, 2, c1)
  static constexpr auto a2 = ein::ops::relu<"a2">(ein::ops::conv_transpose2d<"t2", ein::ops::nhwc, 2, 1>(a1, K2));  // (n, 4, 4, c2)
  static constexpr auto a3 = ein::ops::relu<"a3">(ein::ops::conv_transpose2d<"t3", ein::ops::nhwc, 2, 1>(a2, K3));  // (n, 8, 8, c3)
  static constexpr auto a4 = ein::ops::relu<"a4">(ein::ops::conv_transpose2d<"t4", ein::ops::nhwc, 2, 1>(a3, K4));  // (n, 16, 16, c4)
  static constexpr auto image = ein::ops::tanh<"image">(ein::ops::conv_transpose2d<"t5", ein::ops::nhwc, 2, 1>(a4, K5));
  static constexpr auto net = ein::program(image);  // (n, 32, 32, 3)
};

}  // namespace models
