// Fingerprints: stable 64-bit hashes of a scope's canonical form, used to prune duplicate states.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ein/ir/canonical.hpp"

namespace ein::ir {

/// FNV-1a over the bytes, then the splitmix64 finalizer so that every input bit reaches every
/// output bit. Fixed constants: the same text hashes the same on every run and platform.
inline std::uint64_t stable_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

/// The fingerprint of a scope (EinNet §6.2): the stable hash of canonical_string. Invariant under
/// summation reordering, iterator renaming (traversal iterators count by position and range,
/// summation iterators by range and by the places they occupy in the body), commutative operand
/// order and regrouping of `+ -` and `*` chains, and equal-valued nested scopes; sensitive to
/// traversal order, ranges, every index term (including `/` and `%`), constants, tensor name,
/// shape and dtype, and functions. Equal fingerprints are a hint: confirm with equivalent_form
/// (a search that keeps each state's canonical_string can hash it with stable_hash instead of
/// canonicalizing twice: the result is the same).
/// Example: `L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * B[k]` and `L_{x:[0,4)} Σ_{y:[0,3)} B[y] * A[x, y]`
/// have the same fingerprint; `L_{k:[0,3), i:[0,4)} ...` does not.
inline std::uint64_t fingerprint(const scope& s) { return stable_hash(canonical_string(s)); }

/// The fingerprint of a program: the stable hash of its canonical_string.
inline std::uint64_t fingerprint(const program& p) { return stable_hash(canonical_string(p)); }

/// 16 lower-case hex digits, for file names and cache keys.
inline std::string fingerprint_text(std::uint64_t f) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string r(16, '0');
  for (int i = 15; i >= 0; --i, f >>= 4) r[static_cast<std::size_t>(i)] = digits[f & 15];
  return r;
}

/// A program key (ein::program_key) as model files, reports and generated headers write it:
/// `0x` and its 16 hex digits, e.g. `0x0123456789abcdef`.
inline std::string program_key_text(std::uint64_t key) { return "0x" + fingerprint_text(key); }

}  // namespace ein::ir
