// ETO's reuse plan: which kernels are tuned from scratch and which start from another kernel's
// best schedule, chosen to spend the least tuning time over a model's kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/tune/arborescence.hpp"
#include "ein/tune/kernel_shape.hpp"
#include "ein/tune/reuse.hpp"

namespace ein::tune {

/// How each kernel of a set is tuned, and what that is expected to cost in all.
struct reuse_plan {
  /// Marks a kernel tuned from scratch in `source`.
  static constexpr std::size_t scratch = std::numeric_limits<std::size_t>::max();
  /// Per kernel, the kernel whose best schedule its search starts from, or scratch.
  std::vector<std::size_t> source;
  /// The sum of the chosen tunings' estimated costs.
  double cost = 0;

  /// The kernels in an order that tunes each after its source: by depth in the plan's tree
  /// (scratch first), by index within a depth.
  std::vector<std::size_t> order() const {
    std::vector<std::size_t> depth(source.size(), 0), r(source.size());
    for (std::size_t k = 0; k < source.size(); ++k)
      for (std::size_t s = source[k]; s != scratch; s = source[s]) ++depth[k];
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = k;
    std::stable_sort(r.begin(), r.end(), [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });
    return r;
  }
};

/// The reuse plan of `kernels` of least total estimated cost (ETO §6): the minimum-cost
/// arborescence of the optimization-choice graph, whose nodes are the kernels and a virtual
/// root, with an arc root → k costing `scratch_cost(k)` (tuning k from scratch) and an arc
/// j → k costing `reuse_cost(j, k)` (tuning k from j's best) wherever reusable(j, k). An
/// infinite reuse cost leaves its arc out; the root's arcs make every plan possible.
/// @pre scratch_cost(k) finite and non-negative; reuse_cost(j, k) non-negative.
/// Example: three convolutions of one body, extents 56, 28 and 14, scratch 100 each, reuse 10
/// each: one tuned from scratch, two reusing, cost 120.
inline reuse_plan plan_reuse(const std::vector<kernel_shape>& kernels, const std::function<double(std::size_t)>& scratch_cost,
                             const std::function<double(std::size_t, std::size_t)>& reuse_cost) {
  const std::size_t n = kernels.size(), root = n;
  std::vector<arc> arcs;
  for (std::size_t k = 0; k < n; ++k) {
    const double c = scratch_cost(k);
    if (!std::isfinite(c) || c < 0) throw internal_error("plan_reuse: tuning kernel " + std::to_string(k) + " from scratch costs " + std::to_string(c));
    arcs.push_back({root, k, c});
  }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < n; ++k) {
      if (j == k || !reusable(kernels[j], kernels[k])) continue;
      const double c = reuse_cost(j, k);
      if (std::isfinite(c)) arcs.push_back({j, k, c});
    }
  auto tree = min_arborescence(n + 1, root, arcs);
  if (!tree) throw internal_error("plan_reuse: a kernel without a way to be tuned");
  reuse_plan plan;
  plan.cost = tree->cost;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t from = arcs[tree->entering[k]].from;
    plan.source.push_back(from == root ? reuse_plan::scratch : from);
  }
  return plan;
}

}  // namespace ein::tune
