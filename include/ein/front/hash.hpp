// definition_key: the FNV-1a hash of a definition's record (name, element type, iterators,
// body), the part of program_key that each definition contributes, also used to tell apart two
// definitions of one type that differ in constants.
#pragma once

#include <cstdint>
#include <span>

#include "ein/front/record.hpp"

namespace ein::front::detail {

/// The key of the definition whose record is `r`: name, element type, a max or min reduction (a
/// sum adds nothing: sums keep the keys, and generated headers the bytes, they had before
/// reductions had kinds), traversal then summation iterators (count, then name, lo, hi each),
/// then the body in prefix order, each node as its kind (node_kind or index_form) and its
/// fields; tensors with role, element type and shape, and each access with its index count.
constexpr std::uint64_t definition_key(std::span<const token> r) {
  fnv1a h;
  const token& d = r[0];
  h.str(d.name);
  h.byte(static_cast<std::uint8_t>(d.type));
  if (d.code != static_cast<std::uint8_t>(ir::reduction::sum)) h.byte(d.code);
  std::size_t at = 1;
  for (std::int64_t count : {d.count, d.value}) {
    h.u64(static_cast<std::uint64_t>(count));
    for (std::int64_t k = 0; k < count; ++k, ++at) {
      h.str(r[at].name);
      h.i64(r[at].value);
      h.i64(r[at].count);
    }
  }
  auto kind = [&h](auto k) { h.byte(static_cast<std::uint8_t>(k)); };
  for (; at < r.size(); ++at) {
    const token& t = r[at];
    switch (t.kind) {
      case token_kind::constant: kind(node_kind::constant), h.f64(t.number); break;
      case token_kind::tensor_access:
        kind(node_kind::tensor_access), h.str(t.name), h.byte(t.code), h.byte(static_cast<std::uint8_t>(t.type));
        h.u64(t.rank);
        for (std::size_t k = 0; k < t.rank; ++k) h.i64(t.shape[k]);
        h.u64(t.rank);
        break;
      case token_kind::definition_read: kind(node_kind::definition_read), h.str(t.name), h.u64(t.rank); break;
      case token_kind::unary: kind(node_kind::unary), h.byte(t.code); break;
      case token_kind::binary: kind(node_kind::binary), h.byte(t.code); break;
      case token_kind::index_iterator: kind(index_form::iterator), h.str(t.name); break;
      case token_kind::index_constant: kind(index_form::constant), h.i64(t.value); break;
      case token_kind::index_sum: kind(index_form::sum); break;
      case token_kind::index_difference: kind(index_form::difference); break;
      case token_kind::index_scaled: kind(index_form::scaled), h.i64(t.value); break;
      case token_kind::index_quotient: kind(index_form::quotient), h.i64(t.value); break;
      case token_kind::index_remainder: kind(index_form::remainder), h.i64(t.value); break;
      default: break;
    }
  }
  return h.state;
}

}  // namespace ein::front::detail
