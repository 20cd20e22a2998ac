// Elementwise operators: add, mul (same shapes) and relu, over operands of any rank.
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

}  // namespace ein::ops
