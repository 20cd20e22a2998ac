// DCGAN's generator (Radford et al., 2016) in ein::ops: a 100-d code through five transposed
// convolutions, batch normalization and ReLU, to a 64×64 RGB image in tanh; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

/// DCGAN's generator at batch Batch, every channel count but the image's 3 divided by Narrow
/// (Narrow 1 is the configuration of EinNet's artifact): 100 → 512 (4×4, stride 1, padding 0) →
/// 256 → 128 → 64 → 3 (4×4, stride 2, padding 1 each), batch normalization (inference) and ReLU
/// after every layer but the last, tanh last. Output (Batch, 64, 64, 3).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::dcgan<1>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, class T = float>
struct dcgan {
  static constexpr std::int64_t c0 = 100 / Narrow, c1 = 512 / Narrow, c2 = 256 / Narrow, c3 = 128 / Narrow,
                                c4 = 64 / Narrow;
  static constexpr ein::input<"z", T, Batch, 1, 1, c0> z{};  // (n, h, w, c)
  static constexpr ein::weight<"K1", T, 4, 4, c1, c0> K1{};  // (r, s, f, c)
  static constexpr ein::weight<"K2", T, 4, 4, c2, c1> K2{};
  static constexpr ein::weight<"K3", T, 4, 4, c3, c2> K3{};
  static constexpr ein::weight<"K4", T, 4, 4, c4, c3> K4{};
  static constexpr ein::weight<"K5", T, 4, 4, 3, c4> K5{};
  // Batch normalization: scale, shift, running mean and running variance per channel.
  static constexpr ein::weight<"G1", T, c1> G1{};
  static constexpr ein::weight<"B1", T, c1> B1{};
  static constexpr ein::weight<"M1", T, c1> M1{};
  static constexpr ein::weight<"V1", T, c1> V1{};
  static constexpr ein::weight<"G2", T, c2> G2{};
  static constexpr ein::weight<"B2", T, c2> B2{};
  static constexpr ein::weight<"M2", T, c2> M2{};
  static constexpr ein::weight<"V2", T, c2> V2{};
  static constexpr ein::weight<"G3", T, c3> G3{};
  static constexpr ein::weight<"B3", T, c3> B3{};
  static constexpr ein::weight<"M3", T, c3> M3{};
  static constexpr ein::weight<"V3", T, c3> V3{};
  static constexpr ein::weight<"G4", T, c4> G4{};
  static constexpr ein::weight<"B4", T, c4> B4{};
  static constexpr ein::weight<"M4", T, c4> M4{};
  static constexpr ein::weight<"V4", T, c4> V4{};

  static constexpr auto t1 = ein::ops::conv_transpose2d<"t1", ein::ops::nhwc, 1, 0>(z, K1);  // (n, 4, 4, c1)
  static constexpr auto a1 = ein::ops::relu<"a1">(ein::ops::batch_norm<"n1">(t1, G1, B1, M1, V1));
  static constexpr auto t2 = ein::ops::conv_transpose2d<"t2", ein::ops::nhwc, 2, 1>(a1, K2);  // (n, 8, 8, c2)
  static constexpr auto a2 = ein::ops::relu<"a2">(ein::ops::batch_norm<"n2">(t2, G2, B2, M2, V2));
  static constexpr auto t3 = ein::ops::conv_transpose2d<"t3", ein::ops::nhwc, 2, 1>(a2, K3);  // (n, 16, 16, c3)
  static constexpr auto a3 = ein::ops::relu<"a3">(ein::ops::batch_norm<"n3">(t3, G3, B3, M3, V3));
  static constexpr auto t4 = ein::ops::conv_transpose2d<"t4", ein::ops::nhwc, 2, 1>(a3, K4);  // (n, 32, 32, c4)
  static constexpr auto a4 = ein::ops::relu<"a4">(ein::ops::batch_norm<"n4">(t4, G4, B4, M4, V4));
  static constexpr auto t5 = ein::ops::conv_transpose2d<"t5", ein::ops::nhwc, 2, 1>(a4, K5);  // (n, 64, 64, 3)
  static constexpr auto image = ein::ops::tanh<"image">(t5);
  static constexpr auto net = ein::program(image);
};

}  // namespace models
