// GCN, the global convolutional network for semantic segmentation (Peng et al., 2017), in
// ein::ops: a ResNet-50 backbone, a separable k×1 / 1×k GCN block and a boundary refinement on
// each of its four stages, and transposed convolutions that merge them up to the image; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"
#include "resnet.hpp"

namespace models {

namespace gcn_layers {

using resnet::named;

/// GCN's large-kernel block on X (C channels) to Classes channels, kernel K (odd): the sum of a
/// K×1 then 1×K branch and a 1×K then K×1 branch, zero padding keeping the extent: `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t C, std::int64_t Classes, std::int64_t K>
struct large_kernel {
  static constexpr ein::weight<named<Name, "_l1">(), T, K, 1, Classes, C> l1{};  // (r, s, f, c)
  static constexpr ein::weight<named<Name, "_l2">(), T, 1, K, Classes, Classes> l2{};
  static constexpr ein::weight<named<Name, "_r1">(), T, 1, K, Classes, C> r1{};
  static constexpr ein::weight<named<Name, "_r2">(), T, K, 1, Classes, Classes> r2{};
  static constexpr ein::ops::hw along_h{K / 2, 0}, along_w{0, K / 2};
  static constexpr auto left = ein::ops::conv2d<named<Name, "_left">(), ein::ops::nhwc, 1, along_w>(
      ein::ops::conv2d<named<Name, "_kx1">(), ein::ops::nhwc, 1, along_h>(X, l1), l2);
  static constexpr auto right = ein::ops::conv2d<named<Name, "_right">(), ein::ops::nhwc, 1, along_h>(
      ein::ops::conv2d<named<Name, "_1xk">(), ein::ops::nhwc, 1, along_w>(X, r1), r2);
  static constexpr auto y = ein::ops::add<Name>(left, right);
};

/// GCN's boundary refinement on X (C channels): X plus two 3×3 convolutions with ReLU between: `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t C>
struct refine {
  static constexpr ein::weight<named<Name, "_k1">(), T, 3, 3, C, C> k1{};
  static constexpr ein::weight<named<Name, "_k2">(), T, 3, 3, C, C> k2{};
  static constexpr auto a = ein::ops::relu<named<Name, "_relu">()>(
      ein::ops::conv2d<named<Name, "_c1">(), ein::ops::nhwc, 1, 1>(X, k1));
  static constexpr auto y =
      ein::ops::add<Name>(X, ein::ops::conv2d<named<Name, "_c2">(), ein::ops::nhwc, 1, 1>(a, k2));
};

/// Twice the extent of X (C channels): a 4×4 transposed convolution at stride 2, padding 1: `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t C>
struct upsample {
  static constexpr ein::weight<named<Name, "_k">(), T, 4, 4, C, C> k{};
  static constexpr auto y = ein::ops::conv_transpose2d<Name, ein::ops::nhwc, 2, 1>(X, k);
};

/// A stage's score: the boundary refinement of its GCN block, `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t C, std::int64_t Classes, std::int64_t K>
using score = refine<T, named<Name, "_br">(), large_kernel<T, named<Name, "_gcn">(), X, C, Classes, K>::y, Classes>;

/// The coarser score Coarse upsampled and added to the stage's score Fine, refined: `y`.
template <class T, ein::front::fixed_string Name, const auto& Coarse, const auto& Fine, std::int64_t Classes>
struct merge {
  static constexpr auto sum = ein::ops::add<named<Name, "_sum">()>(upsample<T, named<Name, "_up">(), Coarse, Classes>::y, Fine);
  static constexpr const auto& y = refine<T, named<Name, "_br">(), sum, Classes>::y;
};

}  // namespace gcn_layers

/// Bottleneck blocks per stage of the backbone: ResNet-50's {3, 4, 6, 3} unless told.
struct stages {
  std::int64_t res2 = 3, res3 = 4, res4 = 6, res5 = 3;
};

/// GCN at batch Batch on a (Batch, Side, Side, 3) image, every backbone channel count divided by
/// Narrow (Narrow 1, Side 224, Depth ResNet-50's, K 11, 21 classes: EinNet's configuration):
/// ResNet-50's stem and four stages of bottlenecks (Depth of them, 256 to 2048 channels at
/// 1/4 to 1/32 of Side), a K×1 / 1×K GCN block and a boundary refinement on each stage, the
/// coarser score upsampled ×2, added and refined stage by stage, then two more ×2 upsamplings,
/// each refined. Output (Batch, Side, Side, 21).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::gcn<1>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, std::int64_t Side = 224, stages Depth = stages{},
          std::int64_t K = 11, class T = float>
struct gcn {
  static constexpr std::int64_t classes = 21, c1 = 64 / Narrow, c2 = 128 / Narrow, c3 = 256 / Narrow,
                                c4 = 512 / Narrow;
  static constexpr ein::input<"x", T, Batch, Side, Side, 3> x{};  // (n, h, w, c)
  static constexpr auto a1 = ein::ops::relu<"a1">(resnet::conv_bn<T, "conv1", x, 7, 3, c1, 2, 3>::y);
  static constexpr auto pool = ein::ops::max_pool2d<"pool", ein::ops::nhwc, 3, 2, 1>(a1);  // Side/4
  using res2 = resnet::bottlenecks<T, "res2_", pool, c1, c1, 1, Depth.res2>;                  // 4·c1
  using res3 = resnet::bottlenecks<T, "res3_", res2::y(), 4 * c1, c2, 2, Depth.res3>;          // 4·c2, Side/8
  using res4 = resnet::bottlenecks<T, "res4_", res3::y(), 4 * c2, c3, 2, Depth.res4>;          // 4·c3, Side/16
  using res5 = resnet::bottlenecks<T, "res5_", res4::y(), 4 * c3, c4, 2, Depth.res5>;          // 4·c4, Side/32
  using s5 = gcn_layers::score<T, "s5", res5::y(), 4 * c4, classes, K>;
  using s4 = gcn_layers::score<T, "s4", res4::y(), 4 * c3, classes, K>;
  using s3 = gcn_layers::score<T, "s3", res3::y(), 4 * c2, classes, K>;
  using s2 = gcn_layers::score<T, "s2", res2::y(), 4 * c1, classes, K>;
  using m4 = gcn_layers::merge<T, "m4", s5::y, s4::y, classes>;  // Side/16
  using m3 = gcn_layers::merge<T, "m3", m4::y, s3::y, classes>;  // Side/8
  using m2 = gcn_layers::merge<T, "m2", m3::y, s2::y, classes>;  // Side/4
  using u1 = gcn_layers::refine<T, "u1_br", gcn_layers::upsample<T, "u1", m2::y, classes>::y, classes>;  // Side/2
  using u0 = gcn_layers::refine<T, "scores", gcn_layers::upsample<T, "u0", u1::y, classes>::y, classes>;  // Side
  static constexpr const auto& scores = u0::y;
  static constexpr auto net = ein::program(scores);
};

}  // namespace models
