// What the operators of ein::ops share: operand concept, layouts, transposition, iterator names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ein/front/def.hpp"

namespace ein::ops {

/// The type of an operand, whatever its value category.
template <class T>
using plain = std::remove_cvref_t<T>;

/// An operand of an operator: a tensor (input, weight) or a definition (another operator's
/// result), with a compile-time shape. Operators take operands by forwarding reference: a named
/// definition is read by address, a temporary by value (front/link.hpp).
template <class T>
concept operand = requires {
  plain<T>::name;
  plain<T>::rank;
  plain<T>::shape;
} && !front::expression<plain<T>>;

/// Data layout of a convolution: activations (n, h, w, c) with weights (r, s, f, c), or
/// activations (n, c, h, w) with weights (f, c, r, s).
enum class layout : std::uint8_t { nhwc, nchw };
inline constexpr layout nhwc = layout::nhwc;
inline constexpr layout nchw = layout::nchw;

/// Which operands of a matrix product are stored transposed.
enum class transpose : std::uint8_t { none, a, b, ab };
inline constexpr transpose trans_a = transpose::a;
inline constexpr transpose trans_b = transpose::b;
inline constexpr transpose trans_ab = transpose::ab;

namespace detail {

/// The name "i<K>" of the K-th iterator of an operator of any rank (K < 10).
template <std::size_t K>
constexpr front::fixed_string<3> dim_name() {
  static_assert(K < 10, "ein::ops: elementwise operators support ranks up to 10");
  front::fixed_string<3> s;
  s.chars[0] = 'i';
  s.chars[1] = static_cast<char>('0' + K);
  return s;
}
template <std::size_t K>
using dim = front::var<dim_name<K>()>;

template <class X, class Y>
constexpr bool same_shape() {
  if constexpr (X::rank != Y::rank)
    return false;
  else
    return X::shape == Y::shape;
}

}  // namespace detail
}  // namespace ein::ops
