// program_key: a 64-bit FNV-1a fingerprint of a whole program's structure, computed in constant
// expressions with integer arithmetic only, so that nvcc and host compilers agree on it and a
// generated header can `static_assert` that it still matches the model it was made from.
#pragma once

#include <cstdint>
#include <span>

#include "ein/front/program.hpp"

namespace ein::front {

namespace detail {

constexpr std::uint64_t program_key_of(std::span<const def_base* const> outputs) {
  auto defs = topological_order(outputs);
  fnv1a h;
  h.str("ein.program.v1");
  h.u64(defs.size());
  for (const def_base* d : defs) h.u64(d->key);
  h.u64(outputs.size());
  for (const def_base* d : outputs) h.str(name_of(*d));
  return h.state;
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
    auto outputs = prog.outputs();
    return detail::program_key_of(outputs);
  }
}

}  // namespace ein::front
