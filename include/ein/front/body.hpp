// Body expressions: constants, the IR's unary functions (negation, relu, sigmoid, tanh, exp,
// sqrt, step), + - * / and binary max, min between expressions and numbers. Accesses are in
// tensor.hpp and def.hpp.
#pragma once

#include <type_traits>

#include "ein/front/checks.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front {

/// What every body node says about itself at compile time: the iterators it reads (`vars`), the
/// bare uses that give iterators their ranges (`bare`), the definitions and tensors it reads, and
/// whether an error was already reported inside it (`valid`).
struct leaf_traits {
  using vars = detail::types<>;
  using bare = detail::types<>;
  using defs = detail::types<>;
  using tensors = detail::types<>;
  static constexpr bool valid = true;
};

template <class... N>
struct node_traits {
  using vars = detail::concat<typename N::vars...>;
  using bare = detail::concat<typename N::bare...>;
  using defs = detail::concat<typename N::defs...>;
  using tensors = detail::concat<typename N::tensors...>;
  static constexpr bool valid = (N::valid && ...);
};

/// A floating-point constant of a body.
struct scalar : leaf_traits {
  static constexpr node_kind kind = node_kind::constant;
  double value = 0;
};

/// Stands in for an expression whose error has been reported, and absorbs what is built on it,
/// so that one mistake gives one message.
struct invalid : leaf_traits {
  static constexpr node_kind kind = node_kind::invalid;
  static constexpr bool valid = false;
  static constexpr std::size_t rank = 0;
  template <class... A>
  constexpr invalid operator()(A...) const {
    return {};
  }
};

template <ir::unary_fn Fn, class E>
struct unary_node : node_traits<E> {
  static constexpr node_kind kind = node_kind::unary;
  static constexpr ir::unary_fn fn = Fn;
  E arg;
};

template <ir::binary_op Op, class L, class R>
struct binary_node : node_traits<L, R> {
  static constexpr node_kind kind = node_kind::binary;
  static constexpr ir::binary_op op = Op;
  L lhs;
  R rhs;
};

namespace detail {

template <class T>
constexpr auto to_node(const T& v) {
  if constexpr (std::is_arithmetic_v<T>)
    return scalar{{}, static_cast<double>(v)};
  else
    return v;
}
template <class T>
using node_t = decltype(to_node(std::declval<const T&>()));

template <ir::binary_op Op, class L, class R>
constexpr auto make_binary(const L& l, const R& r) {
  return binary_node<Op, node_t<L>, node_t<R>>{{}, to_node(l), to_node(r)};
}

}  // namespace detail

template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator+(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::add>(l, r);
}
template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator-(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::sub>(l, r);
}
template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator*(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::mul>(l, r);
}
template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator/(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::div>(l, r);
}

// An iterator is not a value: the body reads tensors, and iterators only index them.
#define EIN_FRONT_ITERATOR_AS_VALUE(op)                                                      \
  template <class L, class R>                                                                \
    requires((expression<L> && index_node<R>) || (index_node<L> && expression<R>))          \
  constexpr invalid operator op(L, R) {                                                      \
    checks::iterator_as_value<L, R>();                                                       \
    return {};                                                                               \
  }
EIN_FRONT_ITERATOR_AS_VALUE(+)
EIN_FRONT_ITERATOR_AS_VALUE(-)
EIN_FRONT_ITERATOR_AS_VALUE(*)
EIN_FRONT_ITERATOR_AS_VALUE(/)
#undef EIN_FRONT_ITERATOR_AS_VALUE

/// The larger of two values, `max(x(i), 0.0)`; found by argument-dependent lookup and as
/// ein::max, which also spells a max reduction over iterators (`max(r, s)(body)`, def.hpp).
template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto max(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::max>(l, r);
}
/// The smaller of two values, `min(x(i), y(i))`; as max.
template <body_operand L, body_operand R>
  requires(expression<L> || expression<R>)
constexpr auto min(const L& l, const R& r) {
  return detail::make_binary<ir::binary_op::min>(l, r);
}
// max(h, x(h)): as for the arithmetic operators, an iterator is not a value.
template <class L, class R>
  requires((expression<L> && index_node<R>) || (index_node<L> && expression<R>))
constexpr invalid max(L, R) {
  checks::iterator_as_value<L, R>();
  return {};
}
template <class L, class R>
  requires((expression<L> && index_node<R>) || (index_node<L> && expression<R>))
constexpr invalid min(L, R) {
  checks::iterator_as_value<L, R>();
  return {};
}

/// One function per unary function of the IR, from its list (EIN_FOR_EACH_UNARY_FN: neg, relu,
/// sigmoid, tanh, exp, sqrt, step), each found by argument-dependent lookup
/// (`relu(conv(n, h, w, f))`), so that `tanh(x)` on a double still means std::tanh everywhere in
/// ein; relu and sigmoid are also ein::relu and ein::sigmoid, and `-x` is neg.
#define EIN_FRONT_UNARY_FN(fn)                     \
  template <expression E>                          \
  constexpr auto fn(const E& e) {                  \
    return unary_node<ir::unary_fn::fn, E>{{}, e}; \
  }
EIN_FOR_EACH_UNARY_FN(EIN_FRONT_UNARY_FN)
#undef EIN_FRONT_UNARY_FN

template <expression E>
constexpr auto operator-(const E& e) {
  return neg(e);
}

}  // namespace ein::front
