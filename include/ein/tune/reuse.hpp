// ETO's reuse conditions between two eOperators: when the best schedule of one is a good place to
// start the search of the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ein/tune/kernel_shape.hpp"

namespace ein::tune {

namespace detail {

// The extents of every loop of `k`, traversal then summation.
inline std::vector<std::int64_t> loops(const kernel_shape& k) {
  std::vector<std::int64_t> r = k.traversal;
  r.insert(r.end(), k.summation.begin(), k.summation.end());
  return r;
}

}  // namespace detail

/// Whether the tuning of `to` may start from the best schedule of `from` (ETO, Definition 2):
/// (1) the same type and sketch set — here the same body (kernel_shape::body: the same function
/// of the same reads, up to extents) and the same staged read (the same choice of flat and tiled
/// kernels); (2) one loop nest dominates the other — every loop's extent in `from` at most its
/// extent in `to`, or every one at least. Under (2) the best schedule's shared loops, lanes and
/// blocks scale with the extents in one direction, which is what lets the reuse-based tuner
/// search only a neighbourhood of it. Symmetric; what a reuse costs need not be.
/// Example: 3×3 convolutions `(1,56,56,64) × 64` and `(1,28,28,64) × 64` of the same body meet
/// both conditions; `(1,56,56,64) × 64` and `(1,28,28,128) × 64` fail (2) (56 > 28, 64 < 128).
inline bool reusable(const kernel_shape& from, const kernel_shape& to) {
  if (from.body != to.body || from.staged_y != to.staged_y) return false;
  if (from.traversal.size() != to.traversal.size() || from.summation.size() != to.summation.size()) return false;
  const auto a = detail::loops(from), b = detail::loops(to);
  bool at_most = true, at_least = true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    at_most = at_most && a[i] <= b[i];
    at_least = at_least && a[i] >= b[i];
  }
  return at_most || at_least;
}

}  // namespace ein::tune
