// How a definition reaches the definitions it reads: by address when they are named objects
// (`inline constexpr` variables), by value when they are temporaries of the same expression
// (`ops::relu<"y">(ops::matmul<"m">(x, W))`), and through def_base, which every definition derives
// from, whatever its type. A definition's value thus holds its own record and links only, so a
// program of n definitions costs the compiler O(n), where values that copied everything they
// depend on cost O(n^2) (docs/decisions/0009-front-end-compile-time.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "ein/front/record.hpp"

namespace ein::front {

/// What program-level code (program_key, program(...)'s checks, reify) knows of a definition.
/// Definitions of one def_core type share `core_id` (a hash of the type); `key` covers the value
/// too (definition_key).
struct def_base {
  std::uint64_t core_id = 0;
  std::uint64_t key = 0;
  /// Its record (record.hpp).
  std::span<const token> (*record)(const def_base&) = nullptr;
  /// Appends the definitions it reads to `out`: body order, one per type.
  void (*dependencies)(const def_base&, std::vector<const def_base*>& out) = nullptr;
};

/// A link to a named definition: its address (it has static storage: an `inline constexpr` or
/// `static constexpr` variable).
struct address_link {
  const def_base* def = nullptr;
  constexpr const def_base* get() const { return def; }
};

/// A link to a temporary definition: a copy of it.
template <class D>
struct value_link {
  D def;
  constexpr const def_base* get() const { return &def; }
};

namespace detail {

template <class D>
constexpr std::span<const token> record_of(const def_base& d) {
  return static_cast<const D&>(d).tokens;
}

template <class D>
constexpr void dependencies_of(const def_base& d, std::vector<const def_base*>& out) {
  std::apply([&out](const auto&... l) { (out.push_back(l.get()), ...); }, static_cast<const D&>(d).links);
}

}  // namespace detail
}  // namespace ein::front
