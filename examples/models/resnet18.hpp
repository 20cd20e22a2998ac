// ResNet-18 (He et al., 2016) in ein::ops: a 7×7 stem, max pooling, eight basic blocks with
// residual adds, global average pooling and a fully connected layer; batch normalization folded
// into every convolution; NHWC.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"
#include "resnet.hpp"

namespace models {

/// ResNet-18 at batch Batch on a (Batch, Side, Side, 3) image, every channel count but the
/// image's 3 divided by Narrow (Narrow 1, Side 224: the standard network, EinNet's
/// configuration): a 7×7 convolution 3 → 64 at stride 2, 3×3 max pooling at stride 2, two basic
/// blocks each at 64, 128, 256 and 512 channels (the first of each but the 64's at stride 2 with
/// a 1×1 shortcut), global average pooling and a linear layer to 1000 classes. Output
/// (Batch, 1000).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::resnet18<1>::net;
template <std::int64_t Batch, std::int64_t Narrow = 1, std::int64_t Side = 224, class T = float>
struct resnet18 {
  static constexpr std::int64_t c1 = 64 / Narrow, c2 = 128 / Narrow, c3 = 256 / Narrow, c4 = 512 / Narrow;
  static constexpr ein::input<"x", T, Batch, Side, Side, 3> x{};  // (n, h, w, c)
  static constexpr auto a1 = ein::ops::relu<"a1">(resnet::conv_bn<T, "conv1", x, 7, 3, c1, 2, 3>::y);  // (n, Side/2, Side/2, c1)
  static constexpr auto pool = ein::ops::max_pool2d<"pool", ein::ops::nhwc, 3, 2, 1>(a1);
  using l1b1 = resnet::basic_block<T, "l1b1", pool, c1, c1, 1>;
  using l1b2 = resnet::basic_block<T, "l1b2", l1b1::y, c1, c1, 1>;
  using l2b1 = resnet::basic_block<T, "l2b1", l1b2::y, c1, c2, 2>;
  using l2b2 = resnet::basic_block<T, "l2b2", l2b1::y, c2, c2, 1>;
  using l3b1 = resnet::basic_block<T, "l3b1", l2b2::y, c2, c3, 2>;
  using l3b2 = resnet::basic_block<T, "l3b2", l3b1::y, c3, c3, 1>;
  using l4b1 = resnet::basic_block<T, "l4b1", l3b2::y, c3, c4, 2>;
  using l4b2 = resnet::basic_block<T, "l4b2", l4b1::y, c4, c4, 1>;
  static constexpr auto features = ein::ops::global_avg_pool<"features">(l4b2::y);  // (n, c4)
  static constexpr ein::weight<"fc_w", T, 1000, c4> fc_w{};                      // (out, in)
  static constexpr ein::weight<"fc_b", T, 1000> fc_b{};
  static constexpr auto logits = ein::ops::linear<"logits">(features, fc_w, fc_b);
  static constexpr auto net = ein::program(logits);
};

}  // namespace models
