// FNV-1a hashing of index expressions and stored definition bodies: the parts of program_key,
// also used to tell two definitions of one name apart.
#pragma once

#include <cstdint>
#include <tuple>

#include "ein/front/traits.hpp"

namespace ein::front::detail {

template <class I>
constexpr void hash_index(fnv1a& h, const I& i) {
  h.byte(static_cast<std::uint8_t>(I::form));
  if constexpr (I::form == index_form::iterator) {
    h.str(I::name.view());
  } else if constexpr (I::form == index_form::constant) {
    h.i64(i.value);
  } else if constexpr (I::form == index_form::sum || I::form == index_form::difference) {
    hash_index(h, i.lhs);
    hash_index(h, i.rhs);
  } else {
    h.i64(i.factor);
    hash_index(h, i.arg);
  }
}

template <class... I>
constexpr void hash_indices(fnv1a& h, const std::tuple<I...>& index) {
  h.u64(sizeof...(I));
  std::apply([&h](const I&... i) { (hash_index(h, i), ...); }, index);
}

template <class S>
constexpr void hash_shape(fnv1a& h) {
  h.u64(S::rank);
  for (auto e : S::shape) h.i64(e);
}

template <class... It>
constexpr void hash_iterators(fnv1a& h, types<It...>) {
  h.u64(sizeof...(It));
  ((h.str(It::var_type::name.view()), h.i64(It::lo), h.i64(It::hi)), ...);
}

// A stored body: definitions are read by name (their own keys cover their shapes).
template <class B>
constexpr void hash_body(fnv1a& h, const B& b) {
  h.byte(static_cast<std::uint8_t>(B::kind));
  if constexpr (B::kind == node_kind::constant) {
    h.f64(b.value);
  } else if constexpr (B::kind == node_kind::tensor_access) {
    using t = typename B::source;
    h.str(t::name.view());
    h.byte(static_cast<std::uint8_t>(t::role));
    h.byte(static_cast<std::uint8_t>(t::dtype));
    hash_shape<t>(h);
    hash_indices(h, b.index);
  } else if constexpr (B::kind == node_kind::definition_read) {
    h.str(B::source::name.view());
    hash_indices(h, b.index);
  } else if constexpr (B::kind == node_kind::unary) {
    h.byte(static_cast<std::uint8_t>(B::fn));
    hash_body(h, b.arg);
  } else if constexpr (B::kind == node_kind::binary) {
    h.byte(static_cast<std::uint8_t>(B::op));
    hash_body(h, b.lhs);
    hash_body(h, b.rhs);
  }
}

/// The key of one definition D with stored body `body`: name, element type, ranges, body.
template <class D>
constexpr std::uint64_t definition_key(const typename D::body_type& body) {
  fnv1a h;
  h.str(D::name.view());
  h.byte(static_cast<std::uint8_t>(D::dtype));
  hash_iterators(h, typename D::traversal{});
  hash_iterators(h, typename D::summation{});
  hash_body(h, body);
  return h.state;
}

}  // namespace ein::front::detail
