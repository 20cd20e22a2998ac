// The front end's node kinds, the concepts that constrain every operator, and the compile-time
// analysis of iterator ranges that checks.hpp and def.hpp share.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "ein/front/meta.hpp"

namespace ein::front {

/// The forms of an index expression (quasi-affine: iterators, integer constants, + -, * by a
/// constant, floor / and % by a positive constant); `invalid` stands in for one whose error was
/// already reported.
enum class index_form : std::uint8_t { iterator, constant, sum, difference, scaled, quotient, remainder, invalid };

/// The kinds of body node. A `definition_access` (`conv(n, h, w, f)` in a user's expression)
/// carries the definition's value; def() stores it as a `definition_read`, which carries only
/// indices, the values of all definitions read being kept once each beside the body (def.hpp).
/// `invalid` stands in for an expression whose error was already reported.
enum class node_kind : std::uint8_t { constant, tensor_access, definition_access, definition_read, unary, binary, invalid };

/// A node of an index expression (iterators included).
template <class T>
concept index_node = requires {
  { std::remove_cvref_t<T>::form } -> std::convertible_to<index_form>;
};
/// What an index position accepts: an index expression or an integer.
template <class T>
concept index_operand = index_node<T> || std::integral<std::remove_cvref_t<T>>;

/// A scalar body expression: every body operator is constrained to it.
template <class T>
concept expression = requires {
  { std::remove_cvref_t<T>::kind } -> std::convertible_to<node_kind>;
};
/// A body operand: an expression or a floating or integer constant.
template <class T>
concept body_operand = expression<T> || std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// What over(...) and sum(...) accept: `h` or `h.in<lo, hi>`.
template <class T>
concept iterator_like = requires {
  typename std::remove_cvref_t<T>::var_type;
  { std::remove_cvref_t<T>::has_range } -> std::convertible_to<bool>;
};

namespace detail {

/// A bare iterator V indexing a dimension of extent Extent: `A(.., V, ..)`.
template <class V, std::int64_t Extent>
struct bare_use {
  using var = V;
  static constexpr std::int64_t extent = Extent;
};

/// What the bare uses of one iterator say about its range.
struct extent_hint {
  int count = 0;  // dimensions indexed by the bare iterator
  std::int64_t extent = 0;
  bool agree = true;
};

template <class V, class... U>
constexpr extent_hint hint_for(types<U...>) {
  constexpr bool match[] = {std::is_same_v<typename U::var, V>..., false};
  constexpr std::int64_t extent[] = {U::extent..., 0};
  extent_hint h;
  for (std::size_t i = 0; i < sizeof...(U); ++i) {
    if (!match[i]) continue;
    if (h.count++ == 0)
      h.extent = extent[i];
    else if (h.extent != extent[i])
      h.agree = false;
  }
  return h;
}

/// The range an iterator gets in a body: explicit, or inferred from its bare uses.
template <class It, class Body>
constexpr extent_hint range_hint() {
  if constexpr (It::has_range)
    return {1, It::hi - It::lo, true};
  else
    return hint_for<typename It::var_type>(typename Body::bare{});
}

}  // namespace detail
}  // namespace ein::front
