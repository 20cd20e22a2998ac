// Stored bodies: the type of a definition's body as its def_core names it, reading other
// definitions through their `def_ref` (name, element type, shape: never their bodies, which
// link.hpp reaches).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "ein/front/body.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front {

/// How a stored body names a definition: what an access needs (name, element type, shape).
template <fixed_string Name, ir::dtype Type, std::int64_t... Dims>
struct def_ref {
  static constexpr auto name = Name;
  static constexpr ir::dtype dtype = Type;
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::array<std::int64_t, rank> shape{Dims...};
};

/// `d(index...)` as stored in a definition's body: d by its def_ref R, the indices by value.
template <class R, class... I>
struct definition_read : leaf_traits {
  static constexpr node_kind kind = node_kind::definition_read;
  using source = R;
  using vars = detail::concat<typename I::vars...>;
  using defs = detail::types<R>;
  std::tuple<I...> index;
};

namespace detail {

/// The type of a body as stored: definition accesses become definition reads.
template <class B>
struct stored_type {
  using type = B;
};
template <class B>
  requires(B::kind == node_kind::definition_access)
struct stored_type<B> {
  using type = typename B::read_type;
};
template <ir::unary_fn Fn, class E>
struct stored_type<unary_node<Fn, E>> {
  using type = unary_node<Fn, typename stored_type<E>::type>;
};
template <ir::binary_op Op, class L, class R>
struct stored_type<binary_node<Op, L, R>> {
  using type = binary_node<Op, typename stored_type<L>::type, typename stored_type<R>::type>;
};
template <class B>
using stored_t = typename stored_type<B>::type;

/// Calls f(access) for each access to a definition in a user's body, in body order.
template <class B, class F>
constexpr void for_each_definition(const B& b, F&& f) {
  if constexpr (B::kind == node_kind::definition_access) {
    f(b);
  } else if constexpr (B::kind == node_kind::unary) {
    for_each_definition(b.arg, f);
  } else if constexpr (B::kind == node_kind::binary) {
    for_each_definition(b.lhs, f);
    for_each_definition(b.rhs, f);
  }
}

}  // namespace detail
}  // namespace ein::front
