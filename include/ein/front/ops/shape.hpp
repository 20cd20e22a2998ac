// Reshaping a contiguous (row-major) tensor: reshape to given extents, and flatten to (n, rest).
#pragma once

#include <array>

#include "ein/front/ops/common.hpp"

namespace ein::ops {

namespace detail {

/// Row-major strides of `shape`.
template <std::size_t R>
constexpr std::array<std::int64_t, R> strides_of(const std::array<std::int64_t, R>& shape) {
  std::array<std::int64_t, R> s{};
  std::int64_t at = 1;
  for (std::size_t d = R; d-- > 0;) {
    s[d] = at;
    at *= shape[d];
  }
  return s;
}

template <std::size_t R>
constexpr std::int64_t elements(const std::array<std::int64_t, R>& shape) {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

/// How many leading extents `a` and `b` share: those axes are indexed alike.
template <std::size_t A, std::size_t B>
constexpr std::size_t common_prefix(const std::array<std::int64_t, A>& a, const std::array<std::int64_t, B>& b) {
  std::size_t p = 0;
  while (p < A && p < B && a[p] == b[p]) ++p;
  return p;
}

/// Σ_k dim<k> · Strides[k] over the axes K, First...: the flat position within the trailing axes.
template <auto Strides, std::size_t First, std::size_t... K>
constexpr auto flat_index() {
  if constexpr (sizeof...(K) == 0)
    return dim<First>{} * Strides[First];
  else
    return dim<First>{} * Strides[First] + flat_index<Strides, K...>();
}

/// x's index along Axis: the output's own iterator on the shared leading axes (< P), else
/// the digit of the trailing flat position `flat` (row-major).
template <class X, std::size_t P, std::size_t Axis, class Flat>
constexpr auto unflatten(Flat flat) {
  constexpr std::int64_t stride = strides_of(plain<X>::shape)[Axis];
  if constexpr (Axis < P)
    return dim<Axis>{};
  else if constexpr (Axis == P)
    return flat / stride;
  else
    return flat / stride % plain<X>::shape[Axis];
}

template <front::fixed_string Name, std::int64_t... Dims, class X, std::size_t... K, std::size_t... D>
constexpr auto reshape(X&& x, std::index_sequence<K...>, std::index_sequence<D...>) {
  constexpr std::array<std::int64_t, sizeof...(Dims)> out{Dims...};
  constexpr std::size_t p = common_prefix(out, plain<X>::shape);
  constexpr auto strides = strides_of(out);
  auto flat = [&]<std::size_t... T>(std::index_sequence<T...>) {
    if constexpr (sizeof...(T) == 0)
      return 0;
    else
      return flat_index<strides, (p + T)...>();
  }(std::make_index_sequence<sizeof...(Dims) - p>{});
  return front::def<Name>(front::over(dim<K>{}.template in<0, Dims>...),
                          std::forward<X>(x)(unflatten<plain<X>, p, D>(flat)...));
}

}  // namespace detail

/// The same elements in row-major order under new extents (a view, PyTorch's `reshape` of a
/// contiguous tensor). Leading extents that x and y share are indexed alike; over the rest, with
/// ℓ = Σ_d i_d · stride_d the flat position of y's element i among them,
///   y[i...] = x[i_0, .., i_{p−1}, ⌊ℓ / xstride_p⌋, ⌊ℓ / xstride_{p+1}⌋ mod X_{p+1}, ..., ℓ mod X_last]
///
///     inline constexpr auto y = ops::reshape<"y", 2, 12>(X);   // X of (2, 3, 4)
template <front::fixed_string Name, std::int64_t... Dims, operand X>
constexpr auto reshape(X&& x) {
  constexpr std::array<std::int64_t, sizeof...(Dims)> out{Dims...};
  constexpr std::size_t rx = plain<X>::rank;
  if constexpr (!front::checks::operand_ranks<"reshape", (rx >= 1 && sizeof...(Dims) >= 1 && ((Dims > 0) && ...))>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::reshape_size<"reshape", detail::elements(out) == detail::elements(plain<X>::shape)>()) {
    return front::invalid{};
  } else {
    return detail::reshape<Name, Dims...>(std::forward<X>(x), std::make_index_sequence<sizeof...(Dims)>{},
                                          std::make_index_sequence<rx>{});
  }
}

/// (n, rest...) → (n, Π rest), row-major, as PyTorch's `flatten(1)`: `ops::flatten<"f">(X)`.
template <front::fixed_string Name, operand X>
constexpr auto flatten(X&& x) {
  if constexpr (!front::checks::operand_ranks<"flatten", plain<X>::rank >= 2>())
    return front::invalid{};
  else
    return reshape<Name, plain<X>::shape[0], detail::elements(plain<X>::shape) / plain<X>::shape[0]>(std::forward<X>(x));
}

}  // namespace ein::ops
