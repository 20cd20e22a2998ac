// Iterators (`var<"h">`, `h.in<lo, hi>`) and quasi-affine index expressions over them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ein/front/checks.hpp"

namespace ein::front {

template <class V, std::int64_t Lo, std::int64_t Hi>
struct ranged;

/// An index variable named by a string: `inline constexpr var<"h"> h;`. Its range comes from
/// the accesses it indexes alone (`A(n, h, ...)`), or explicitly from `h.in<lo, hi>`.
template <fixed_string Name>
struct var {
  static constexpr auto name = Name;
  static constexpr index_form form = index_form::iterator;
  static constexpr bool valid = true;
  static constexpr bool has_range = false;
  using var_type = var;
  using vars = detail::types<var>;

  /// The same iterator over the half-open range [Lo, Hi), for over(...) and sum(...).
  template <std::int64_t Lo, std::int64_t Hi>
  static constexpr ranged<var, Lo, Hi> in{};
};

/// An iterator with an explicit range [Lo, Hi) (Lo may be negative): `h.in<0, 7>`.
template <class V, std::int64_t Lo, std::int64_t Hi>
struct ranged {
  static constexpr bool has_range = true;
  static constexpr std::int64_t lo = Lo, hi = Hi;
  using var_type = V;
};

/// An integer constant inside an index.
struct index_constant {
  static constexpr index_form form = index_form::constant;
  static constexpr bool valid = true;
  using vars = detail::types<>;
  std::int64_t value = 0;
};

/// Stands in for an index whose error was reported; an access containing it is `invalid`.
struct invalid_index {
  static constexpr index_form form = index_form::invalid;
  static constexpr bool valid = false;
  using vars = detail::types<>;
};

/// `l + r` and `l - r` of two index expressions.
template <index_form Form, class L, class R>
struct index_binary {
  static constexpr index_form form = Form;
  static constexpr bool valid = L::valid && R::valid;
  using vars = detail::concat<typename L::vars, typename R::vars>;
  L lhs;
  R rhs;
};

/// `arg * factor`, `floor(arg / factor)` or `arg mod factor` with an integer constant factor.
template <index_form Form, class E>
struct index_by_constant {
  static constexpr index_form form = Form;
  static constexpr bool valid = E::valid;
  using vars = typename E::vars;
  E arg;
  std::int64_t factor = 1;
};

namespace detail {

template <class T>
constexpr auto to_index(T v) {
  if constexpr (std::integral<T>)
    return index_constant{static_cast<std::int64_t>(v)};
  else
    return v;
}
template <class T>
using index_t = decltype(to_index(std::declval<T>()));

}  // namespace detail

template <index_operand L, index_operand R>
  requires(index_node<L> || index_node<R>)
constexpr auto operator+(L l, R r) {
  return index_binary<index_form::sum, detail::index_t<L>, detail::index_t<R>>{
      detail::to_index(l), detail::to_index(r)};
}

template <index_operand L, index_operand R>
  requires(index_node<L> || index_node<R>)
constexpr auto operator-(L l, R r) {
  return index_binary<index_form::difference, detail::index_t<L>, detail::index_t<R>>{
      detail::to_index(l), detail::to_index(r)};
}

template <index_node E>
constexpr auto operator-(E e) {
  return index_by_constant<index_form::scaled, E>{e, -1};
}

template <index_operand L, index_operand R>
  requires(index_node<L> || index_node<R>)
constexpr auto operator*(L l, R r) {
  if constexpr (!checks::index_product<L, R>()) {
    return invalid_index{};
  } else if constexpr (std::integral<R>) {
    return index_by_constant<index_form::scaled, L>{l, static_cast<std::int64_t>(r)};
  } else if constexpr (std::integral<L>) {
    return index_by_constant<index_form::scaled, R>{r, static_cast<std::int64_t>(l)};
  } else if constexpr (R::form == index_form::constant) {
    return index_by_constant<index_form::scaled, L>{l, r.value};
  } else {
    return index_by_constant<index_form::scaled, R>{r, l.value};
  }
}

/// Floor division by a positive integer constant (rounds towards negative infinity).
template <index_operand L, index_operand R>
  requires(index_node<L> || index_node<R>)
constexpr auto operator/(L l, R r) {
  if constexpr (!checks::index_divisor<L, R>())
    return invalid_index{};
  else
    return index_by_constant<index_form::quotient, L>{l, checks::positive_divisor(r)};
}

/// Modulo by a positive integer constant (result in [0, d)).
template <index_operand L, index_operand R>
  requires(index_node<L> || index_node<R>)
constexpr auto operator%(L l, R r) {
  if constexpr (!checks::index_divisor<L, R>())
    return invalid_index{};
  else
    return index_by_constant<index_form::remainder, L>{l, checks::positive_divisor(r)};
}

}  // namespace ein::front
