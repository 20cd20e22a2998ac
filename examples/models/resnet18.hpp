// ResNet-18 (He et al., 2016) in ein::ops: a 7×7 stem, max pooling, eight basic blocks with
// residual adds, global average pooling and a fully connected layer; batch normalization folded
// into every convolution; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

namespace resnet {

/// `Name` followed by `Suffix`: the names of a layer's weights and definitions.
template <ein::front::fixed_string Name, ein::front::fixed_string Suffix>
constexpr auto named() {
  return ein::ops::detail::suffixed<Name, Suffix>();
}

/// An R×R convolution Cin → Cout of X with batch normalization folded (its filter Name_k and
/// scale, shift, mean and variance Name_g, Name_b, Name_m, Name_v): `y`, before any ReLU.
template <ein::front::fixed_string Name, const auto& X, std::int64_t R, std::int64_t Cin, std::int64_t Cout,
          std::int64_t Stride, std::int64_t Pad>
struct conv_bn {
  static constexpr ein::weight<named<Name, "_k">(), float, R, R, Cout, Cin> k{};  // (r, s, f, c)
  static constexpr ein::weight<named<Name, "_g">(), float, Cout> g{};
  static constexpr ein::weight<named<Name, "_b">(), float, Cout> b{};
  static constexpr ein::weight<named<Name, "_m">(), float, Cout> m{};
  static constexpr ein::weight<named<Name, "_v">(), float, Cout> v{};
  static constexpr auto y = ein::ops::conv2d_batch_norm<Name, ein::ops::nhwc, Stride, Pad>(X, k, g, b, m, v);
};

/// ResNet's basic block on X (Cin channels): two 3×3 conv_bn to C channels, the first at Stride,
/// ReLU between, plus the shortcut (X itself, or a 1×1 conv_bn at Stride where the shape
/// changes), then ReLU: `y`.
template <ein::front::fixed_string Name, const auto& X, std::int64_t Cin, std::int64_t C, std::int64_t Stride>
struct basic_block {
  using first = conv_bn<named<Name, "_a">(), X, 3, Cin, C, Stride, 1>;
  static constexpr auto a = ein::ops::relu<named<Name, "_ra">()>(first::y);
  using second = conv_bn<named<Name, "_c">(), a, 3, C, C, 1, 1>;
  static constexpr const auto& shortcut() {
    if constexpr (Stride == 1 && Cin == C)
      return X;
    else
      return conv_bn<named<Name, "_d">(), X, 1, Cin, C, Stride, 0>::y;
  }
  static constexpr auto y = ein::ops::relu<Name>(ein::ops::add<named<Name, "_add">()>(second::y, shortcut()));
};

}  // namespace resnet

/// ResNet-18 at batch Batch on a (Batch, Side, Side, 3) image, every channel count but the
/// image's 3 divided by Narrow (Narrow 1, Side 224: the standard network, EinNet's
/// configuration): a 7×7 convolution 3 → 64 at stride 2, 3×3 max pooling at stride 2, two basic
/// blocks each at 64, 128, 256 and 512 channels (the first of each but the 64's at stride 2 with
/// a 1×1 shortcut), global average pooling and a linear layer to 1000 classes. Output
/// (Batch, 1000).
///
///     inline constexpr auto& net = models::resnet18<1>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, std::int64_t Side = 224>
struct resnet18 {
  static constexpr std::int64_t c1 = 64 / Narrow, c2 = 128 / Narrow, c3 = 256 / Narrow, c4 = 512 / Narrow;
  static constexpr ein::input<"x", float, Batch, Side, Side, 3> x{};  // (n, h, w, c)
  using stem = resnet::conv_bn<"conv1", x, 7, 3, c1, 2, 3>;
  static constexpr auto a1 = ein::ops::relu<"a1">(stem::y);  // (n, Side/2, Side/2, c1)
  static constexpr auto pool = ein::ops::max_pool2d<"pool", ein::ops::nhwc, 3, 2, 1>(a1);
  using l1b1 = resnet::basic_block<"l1b1", pool, c1, c1, 1>;
  using l1b2 = resnet::basic_block<"l1b2", l1b1::y, c1, c1, 1>;
  using l2b1 = resnet::basic_block<"l2b1", l1b2::y, c1, c2, 2>;
  using l2b2 = resnet::basic_block<"l2b2", l2b1::y, c2, c2, 1>;
  using l3b1 = resnet::basic_block<"l3b1", l2b2::y, c2, c3, 2>;
  using l3b2 = resnet::basic_block<"l3b2", l3b1::y, c3, c3, 1>;
  using l4b1 = resnet::basic_block<"l4b1", l3b2::y, c3, c4, 2>;
  using l4b2 = resnet::basic_block<"l4b2", l4b1::y, c4, c4, 1>;
  static constexpr auto features = ein::ops::global_avg_pool<"features">(l4b2::y);  // (n, c4)
  static constexpr ein::weight<"fc_w", float, 1000, c4> fc_w{};                      // (out, in)
  static constexpr ein::weight<"fc_b", float, 1000> fc_b{};
  static constexpr auto logits = ein::ops::linear<"logits">(features, fc_w, fc_b);
  static constexpr auto net = ein::program(logits);
};

}  // namespace models
