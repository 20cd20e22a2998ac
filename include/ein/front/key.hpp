// program_key: a 64-bit FNV-1a fingerprint of a whole program's structure, computed in constant
// expressions with integer arithmetic only, so that nvcc and host compilers agree on it and a
// generated header can `static_assert` that it still matches the model it was made from.
#pragma once

#include <cstdint>

#include "ein/front/hash.hpp"
#include "ein/front/program.hpp"

namespace ein::front {

namespace detail {

template <class P, class... D>
constexpr void hash_definitions(fnv1a& h, const P& prog, types<D...>) {
  h.u64(sizeof...(D));
  (h.u64(definition_key<D>(stored_body<D>(prog.bodies))), ...);
}

template <class... D>
constexpr void hash_outputs(fnv1a& h, types<D...>) {
  h.u64(sizeof...(D));
  (h.str(D::name.view()), ...);
}

}  // namespace detail

/// A fingerprint of the whole program: names, shapes, element types, roles, ranges, index
/// coefficients and constants, operators, outputs. The same program gives the same key on every
/// compiler; any change to it gives (with overwhelming probability) another key. 0 for a program
/// whose errors were already reported.
///
///     static_assert(ein::program_key(model::net) == 0x1234abcd5678ef00ULL, "stale header");
template <program_like P>
constexpr std::uint64_t program_key(const P& prog) {
  if constexpr (std::is_same_v<P, invalid>) {
    return 0;
  } else {
    detail::fnv1a h;
    h.str("ein.program.v1");
    detail::hash_definitions(h, prog, typename P::defs{});
    detail::hash_outputs(h, typename P::outputs{});
    return h.state;
  }
}

}  // namespace ein::front
