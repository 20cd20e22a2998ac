// How definitions keep what they read without copying it over and over. A stored body reads
// another definition through its `def_ref` (name, element type, shape: never its body), and each
// definition keeps, once each, the stored bodies of every definition it depends on
// (`closure_store`). A residual network whose blocks each read the previous block twice thus
// stays linear in size, in its values and in its type names (which debug information spells
// out), instead of doubling per block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "ein/front/body.hpp"
#include "ein/front/hash.hpp"
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

/// The body as stored: definition accesses become definition reads.
template <class B>
constexpr auto stored(const B& b) {
  if constexpr (B::kind == node_kind::definition_access)
    return typename B::read_type{{}, b.index};
  else if constexpr (B::kind == node_kind::unary)
    return unary_node<B::fn, decltype(stored(b.arg))>{{}, stored(b.arg)};
  else if constexpr (B::kind == node_kind::binary)
    return binary_node<B::op, decltype(stored(b.lhs)), decltype(stored(b.rhs))>{
        {}, stored(b.lhs), stored(b.rhs)};
  else
    return b;
}
template <class B>
using stored_t = decltype(stored(std::declval<B>()));

/// Calls f(definition) for each definition a user's body accesses, in body order.
template <class B, class F>
constexpr void for_each_definition(const B& b, F&& f) {
  if constexpr (B::kind == node_kind::definition_access) {
    f(b.definition);
  } else if constexpr (B::kind == node_kind::unary) {
    for_each_definition(b.arg, f);
  } else if constexpr (B::kind == node_kind::binary) {
    for_each_definition(b.lhs, f);
    for_each_definition(b.rhs, f);
  }
}

// Closures are flat: one base class per definition, and every operation a function template
// of that one definition (found by derived-to-base conversion), so that a program with n
// definitions instantiates O(n) functions rather than one per (closure, definition) pair.

/// One stored body in a closure_store.
template <class D>
struct body_slot {
  typename D::body_type body;
};

/// The stored body of X in a closure that holds it: `stored_body<X>(closure)`.
template <class X>
constexpr const typename X::body_type& stored_body(const body_slot<X>& slot) {
  return slot.body;
}

/// The stored bodies of the definitions Defs (a list of def_core types without repeats), one each.
template <class Defs>
struct closure_store;
template <class... D>
struct closure_store<types<D...>> : body_slot<D>... {};

template <class D>
struct build_slot {
  typename D::body_type body;
  bool filled = false;
};

/// Two values of one definition type must agree: types cannot tell apart definitions that
/// differ only in constants, keys can.
template <class X>
constexpr void fill(build_slot<X>& slot, const typename X::body_type& body) {
  if (slot.filled) {
    if (definition_key<X>(slot.body) != definition_key<X>(body))
      checks::two_different_definitions_have_the_same_name();
    return;
  }
  slot.filled = true;
  slot.body = body;
}

template <class B, class S, class... C>
constexpr void fill_closure(B& builder, const S& closure, types<C...>) {
  (fill<C>(builder, stored_body<C>(closure)), ...);
}

/// Builds the closure_store of Defs from definition values.
template <class Defs>
struct store_builder;
template <class... D>
struct store_builder<types<D...>> : build_slot<D>... {
  /// A definition value: its own body and everything it depends on.
  template <class X>
  constexpr void add(const X& d) {
    fill<typename X::core>(*this, d.body);
    fill_closure(*this, d.closure, typename X::closure_defs{});
  }

  constexpr closure_store<types<D...>> out() const {
    return {body_slot<D>{static_cast<const build_slot<D>&>(*this).body}...};
  }
};

}  // namespace detail
}  // namespace ein::front
