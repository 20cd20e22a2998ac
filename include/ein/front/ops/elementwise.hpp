// Elementwise operators over operands of any rank: add, mul (same shapes), relu, tanh, sigmoid, and
// the per-channel bias_add and prelu.
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

namespace detail {

template <front::fixed_string Name, class F, operand... X>
constexpr auto elementwise(F f, X&&... x) {
  using first = plain<front::detail::type_at<0, front::detail::types<X...>>>;
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return front::def<Name>(front::over(dim<K>{}...), f(std::forward<X>(x)(dim<K>{}...)...));
  }(std::make_index_sequence<first::rank>{});
}

/// `y[i...] = f(x[i...], p[i_Axis]...)` for parameters p of rank 1 and x's extent along Axis.
template <front::fixed_string Name, front::fixed_string Op, std::size_t Axis, class F, operand X, operand... P>
constexpr auto per_axis(F f, X&& x, P&&... p) {
  constexpr std::size_t rank = plain<X>::rank;
  if constexpr (!front::checks::operand_ranks<Op, (Axis < rank && ((plain<P>::rank == 1) && ...))>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<Op, ((plain<P>::shape[0] == plain<X>::shape[Axis]) && ...)>()) {
    return front::invalid{};
  } else {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return front::def<Name>(front::over(dim<K>{}...),
                              f(std::forward<X>(x)(dim<K>{}...), std::forward<P>(p)(dim<Axis>{})...));
    }(std::make_index_sequence<rank>{});
  }
}

/// The channel axis of an activation of rank R in layout L: the last (nhwc), or 1 (nchw); past
/// the rank when R is 0, which per_axis reports.
template <data_format L, std::size_t R>
inline constexpr std::size_t channel_axis = L == data_format::nhwc ? (R == 0 ? 1 : R - 1) : 1;

}  // namespace detail

/// `y[i...] = x[i...] + z[i...]`: `ops::add<"y">(x, z)`; x and z have the same shape.
template <front::fixed_string Name, operand X, operand Z>
constexpr auto add(X&& x, Z&& z) {
  if constexpr (!front::checks::operand_extents<"add", detail::same_shape<plain<X>, plain<Z>>()>())
    return front::invalid{};
  else
    return detail::elementwise<Name>([](auto a, auto b) { return a + b; }, std::forward<X>(x), std::forward<Z>(z));
}

/// `y[i...] = x[i...] * z[i...]`: `ops::mul<"y">(x, z)`; x and z have the same shape.
template <front::fixed_string Name, operand X, operand Z>
constexpr auto mul(X&& x, Z&& z) {
  if constexpr (!front::checks::operand_extents<"mul", detail::same_shape<plain<X>, plain<Z>>()>())
    return front::invalid{};
  else
    return detail::elementwise<Name>([](auto a, auto b) { return a * b; }, std::forward<X>(x), std::forward<Z>(z));
}

/// `y[i...] = max(x[i...], 0)`: `ops::relu<"y">(x)`.
template <front::fixed_string Name, operand X>
constexpr auto relu(X&& x) {
  return detail::elementwise<Name>([](auto a) { return front::relu(a); }, std::forward<X>(x));
}

/// `y[i...] = tanh(x[i...])`: `ops::tanh<"y">(x)`.
template <front::fixed_string Name, operand X>
constexpr auto tanh(X&& x) {
  return detail::elementwise<Name>([](auto a) { return front::tanh(a); }, std::forward<X>(x));
}

/// `y[i...] = 1 / (1 + exp(-x[i...]))`: `ops::sigmoid<"y">(x)`.
template <front::fixed_string Name, operand X>
constexpr auto sigmoid(X&& x) {
  return detail::elementwise<Name>([](auto a) { return front::sigmoid(a); }, std::forward<X>(x));
}

/// Per-channel bias, `y[.., c, ..] = x[.., c, ..] + b[c]`, c the last axis (nhwc, and the feature
/// axis of a (n, features) activation) or axis 1 (nchw): `ops::bias_add<"y", ops::nchw>(x, b)`.
template <front::fixed_string Name, data_format L = nhwc, operand X, operand B>
constexpr auto bias_add(X&& x, B&& b) {
  return detail::per_axis<Name, "bias_add", detail::channel_axis<L, plain<X>::rank>>([](auto v, auto bias) { return v + bias; }, std::forward<X>(x),
                                                  std::forward<B>(b));
}

/// PyTorch's PReLU with one slope per channel (channel axis as for bias_add):
/// `y[.., c, ..] = max(x, 0) + a[c] · min(x, 0)`: `ops::prelu<"y">(x, a)`.
template <front::fixed_string Name, data_format L = nhwc, operand X, operand A>
constexpr auto prelu(X&& x, A&& a) {
  return detail::per_axis<Name, "prelu", detail::channel_axis<L, plain<X>::rank>>(
      [](auto v, auto slope) { return front::max(v, 0.0) + slope * front::min(v, 0.0); }, std::forward<X>(x),
      std::forward<A>(a));
}

}  // namespace ein::ops
