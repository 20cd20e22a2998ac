// A definition's record: its name, element type, iterators and stored body as a flat array of
// tokens, written at compile time. Program-level work (program_key, the checks of program(...),
// reify) reads records, never body types, so it is compiled once, not once per definition.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "ein/front/traits.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front {

/// What a token stands for. Tokens are in prefix order: a node is followed by its operands.
enum class token_kind : std::uint8_t {
  definition,        // name, dtype, code = reduction; count = traversal, value = summation iterators
  iterator,          // name, value = lo, count = hi
  constant,          // number
  tensor_access,     // name, role, dtype, shape; followed by one index per dimension
  definition_read,   // name, dtype, shape; followed by one index per dimension
  unary,             // fn; followed by its operand
  binary,            // op; followed by its two operands
  index_iterator,    // name
  index_constant,    // value
  index_sum,         // followed by its two operands
  index_difference,  // followed by its two operands
  index_scaled,      // value = factor; followed by its operand
  index_quotient,    // value = divisor; followed by its operand
  index_remainder,   // value = divisor; followed by its operand
};

/// One token of a record. Names and shapes point to static storage (template parameter objects
/// and static members), so a record is a constant and reads the same at run time.
struct token {
  token_kind kind = token_kind::constant;
  std::uint8_t code = 0;  // reduction, role, unary_fn or binary_op
  ir::dtype type = ir::dtype::f32;
  std::int64_t value = 0;
  std::int64_t count = 0;
  double number = 0;
  std::string_view name;
  const std::int64_t* shape = nullptr;
  std::size_t rank = 0;
};

namespace detail {

template <class I>
constexpr std::size_t index_tokens() {
  if constexpr (I::form == index_form::iterator || I::form == index_form::constant)
    return 1;
  else if constexpr (I::form == index_form::sum || I::form == index_form::difference)
    return 1 + index_tokens<decltype(I::lhs)>() + index_tokens<decltype(I::rhs)>();
  else
    return 1 + index_tokens<decltype(I::arg)>();
}

template <class... I>
constexpr std::size_t indices_tokens(std::tuple<I...>*) {
  return (std::size_t{0} + ... + index_tokens<I>());
}

template <class B>
inline constexpr bool is_access = B::kind == node_kind::tensor_access || B::kind == node_kind::definition_read ||
                                  B::kind == node_kind::definition_access;

template <class B>
constexpr std::size_t body_tokens() {
  if constexpr (is_access<B>)
    return 1 + indices_tokens(static_cast<decltype(B::index)*>(nullptr));
  else if constexpr (B::kind == node_kind::unary)
    return 1 + body_tokens<decltype(B::arg)>();
  else if constexpr (B::kind == node_kind::binary)
    return 1 + body_tokens<decltype(B::lhs)>() + body_tokens<decltype(B::rhs)>();
  else
    return 1;
}

/// Writes tokens at `at`, advancing it. Tokens are filled field by field: nvcc's host-code
/// generator cannot re-emit designated initializers in function arguments.
struct token_writer {
  token* at;
  /// The next token, of `kind`, its other fields as value-initialized.
  constexpr token& put(token_kind kind) {
    *at = token{};
    at->kind = kind;
    return *at++;
  }
};

template <class I>
constexpr void write_index(token_writer& w, const I& i) {
  if constexpr (I::form == index_form::iterator) {
    w.put(token_kind::index_iterator).name = I::name.view();
  } else if constexpr (I::form == index_form::constant) {
    w.put(token_kind::index_constant).value = i.value;
  } else if constexpr (I::form == index_form::sum || I::form == index_form::difference) {
    w.put(I::form == index_form::sum ? token_kind::index_sum : token_kind::index_difference);
    write_index(w, i.lhs);
    write_index(w, i.rhs);
  } else {
    constexpr token_kind kind = I::form == index_form::scaled     ? token_kind::index_scaled
                                : I::form == index_form::quotient ? token_kind::index_quotient
                                                                  : token_kind::index_remainder;
    w.put(kind).value = i.factor;
    write_index(w, i.arg);
  }
}

template <class... I>
constexpr void write_indices(token_writer& w, const std::tuple<I...>& index) {
  std::apply([&w](const I&... i) { (write_index(w, i), ...); }, index);
}

template <class B>
constexpr void write_body(token_writer& w, const B& b) {
  if constexpr (B::kind == node_kind::constant) {
    w.put(token_kind::constant).number = b.value;
  } else if constexpr (is_access<B>) {
    using s = typename B::source;
    constexpr bool tensor = B::kind == node_kind::tensor_access;
    token& t = w.put(tensor ? token_kind::tensor_access : token_kind::definition_read);
    t.type = s::dtype;
    t.name = s::name.view();
    t.shape = s::shape.data();
    t.rank = s::rank;
    if constexpr (tensor) t.code = static_cast<std::uint8_t>(s::role);
    write_indices(w, b.index);
  } else if constexpr (B::kind == node_kind::unary) {
    w.put(token_kind::unary).code = static_cast<std::uint8_t>(B::fn);
    write_body(w, b.arg);
  } else {
    w.put(token_kind::binary).code = static_cast<std::uint8_t>(B::op);
    write_body(w, b.lhs);
    write_body(w, b.rhs);
  }
}

template <class It>
constexpr void write_iterator(token_writer& w) {
  token& t = w.put(token_kind::iterator);
  t.value = It::lo;
  t.count = It::hi;
  t.name = It::var_type::name.view();
}

template <class... It>
constexpr void write_iterators(token_writer& w, types<It...>) {
  (write_iterator<It>(w), ...);
}

}  // namespace detail

/// The number of tokens of the record of a def_core D.
template <class D>
inline constexpr std::size_t record_size = 1 + D::traversal::size + D::summation::size +
                                           detail::body_tokens<typename D::body_type>();

/// The record of a def_core D whose body is `body` (as written, or stored: accesses to a
/// definition are written as its reads): a `definition` token, its traversal then summation
/// iterators, then the body.
template <class D, class B>
constexpr std::array<token, record_size<D>> record(const B& body) {
  std::array<token, record_size<D>> r{};
  detail::token_writer w{r.data()};
  token& d = w.put(token_kind::definition);
  d.code = static_cast<std::uint8_t>(D::reduce);
  d.type = D::dtype;
  d.value = static_cast<std::int64_t>(D::summation::size);
  d.count = static_cast<std::int64_t>(D::traversal::size);
  d.name = D::name.view();
  detail::write_iterators(w, typename D::traversal{});
  detail::write_iterators(w, typename D::summation{});
  detail::write_body(w, body);
  return r;
}

}  // namespace ein::front
