// ResNet's layers in ein::ops, shared by ResNet-18 and GCN's ResNet-50 backbone: a convolution
// with batch normalization folded, the basic block and the bottleneck block, and a stage of
// bottlenecks; NHWC. Each layer's first argument T is the element type of its weights (that of
// its input).
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models::resnet {

/// `Name` followed by `Suffix`: the names of a layer's weights and definitions.
template <ein::front::fixed_string Name, ein::front::fixed_string Suffix>
constexpr auto named() {
  return ein::front::suffixed<Name, Suffix>();
}

/// The digit K (0 ≤ K < 10) as a name.
template <std::int64_t K>
constexpr ein::front::fixed_string<2> digit() {
  static_assert(K >= 0 && K < 10, "models::resnet::digit: one digit");
  ein::front::fixed_string<2> s;
  s.chars[0] = static_cast<char>('0' + K);
  return s;
}

/// An R×R convolution Cin → Cout of X with batch normalization folded (its filter Name_k and
/// scale, shift, mean and variance Name_g, Name_b, Name_m, Name_v): `y`, before any ReLU.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t R, std::int64_t Cin, std::int64_t Cout,
          std::int64_t Stride, std::int64_t Pad>
struct conv_bn {
  static constexpr ein::weight<named<Name, "_k">(), T, R, R, Cout, Cin> k{};  // (r, s, f, c)
  static constexpr ein::weight<named<Name, "_g">(), T, Cout> g{};
  static constexpr ein::weight<named<Name, "_b">(), T, Cout> b{};
  static constexpr ein::weight<named<Name, "_m">(), T, Cout> m{};
  static constexpr ein::weight<named<Name, "_v">(), T, Cout> v{};
  static constexpr auto y = ein::ops::conv2d_batch_norm<Name, ein::ops::nhwc, Stride, Pad>(X, k, g, b, m, v);
};

/// The shortcut of a block from X (Cin channels) to Cout channels at Stride: X itself, or a 1×1
/// conv_bn at Stride named Name where the shape changes.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t Cin, std::int64_t Cout, std::int64_t Stride>
constexpr const auto& shortcut() {
  if constexpr (Stride == 1 && Cin == Cout)
    return X;
  else
    return conv_bn<T, Name, X, 1, Cin, Cout, Stride, 0>::y;
}

/// ResNet's basic block on X (Cin channels): two 3×3 conv_bn to C channels, the first at Stride,
/// ReLU between, plus the shortcut, then ReLU: `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t Cin, std::int64_t C, std::int64_t Stride>
struct basic_block {
  static constexpr auto a =
      ein::ops::relu<named<Name, "_ra">()>(conv_bn<T, named<Name, "_a">(), X, 3, Cin, C, Stride, 1>::y);
  static constexpr auto y = ein::ops::relu<Name>(ein::ops::add<named<Name, "_add">()>(
      conv_bn<T, named<Name, "_c">(), a, 3, C, C, 1, 1>::y, shortcut<T, named<Name, "_d">(), X, Cin, C, Stride>()));
};

/// ResNet's bottleneck block on X (Cin channels), torchvision's (stride on the 3×3): 1×1 conv_bn
/// to C, 3×3 conv_bn at Stride, 1×1 conv_bn to 4·C, ReLU between, plus the shortcut, then
/// ReLU: `y`.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t Cin, std::int64_t C, std::int64_t Stride>
struct bottleneck {
  static constexpr auto a = ein::ops::relu<named<Name, "_ra">()>(conv_bn<T, named<Name, "_a">(), X, 1, Cin, C, 1, 0>::y);
  static constexpr auto b =
      ein::ops::relu<named<Name, "_rb">()>(conv_bn<T, named<Name, "_b">(), a, 3, C, C, Stride, 1>::y);
  static constexpr auto y = ein::ops::relu<Name>(ein::ops::add<named<Name, "_add">()>(
      conv_bn<T, named<Name, "_c">(), b, 1, C, 4 * C, 1, 0>::y, shortcut<T, named<Name, "_d">(), X, Cin, 4 * C, Stride>()));
};

/// A stage of N bottlenecks NameK (K = 1..N) on X: the first from Cin channels at Stride, the
/// others from 4·C at stride 1; `y()` is the last block's output.
template <class T, ein::front::fixed_string Name, const auto& X, std::int64_t Cin, std::int64_t C, std::int64_t Stride,
          std::int64_t N, std::int64_t K = 1>
struct bottlenecks {
  using block = bottleneck<T, named<Name, digit<K>()>(), X, Cin, C, Stride>;
  static constexpr const auto& y() {
    if constexpr (K == N)
      return block::y;
    else
      return bottlenecks<T, Name, block::y, 4 * C, C, 1, N, K + 1>::y();
  }
};

}  // namespace models::resnet
