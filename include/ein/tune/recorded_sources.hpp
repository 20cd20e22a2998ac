// Kernels tuned by an earlier build as sources of ETO's reuse: a model's kernels may start from
// the records of the models tuned before it, not only from one another.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ein/tune/database.hpp"
#include "ein/tune/kernel_shape.hpp"
#include "ein/tune/reuse.hpp"
#include "ein/tune/reuse_plan.hpp"

namespace ein::tune {

/// A kernel tuned already, as its record keeps it: its key, its shape and its best schedule.
struct recorded_kernel {
  std::string key;
  kernel_shape shape;
  schedule best;
};

/// The kernels of `records` (one device's, by key) that some kernel of `untuned` may start from
/// (reusable), where `usable(shape, best)` (the tuner's kind of schedule and a point of the
/// shape's space). A record without a shape (written before records kept one) is none.
inline std::vector<recorded_kernel> reuse_sources(const std::map<std::string, tuning_record>& records,
                                                  const std::vector<kernel_shape>& untuned,
                                                  const std::function<bool(const kernel_shape&, const schedule&)>& usable) {
  std::vector<recorded_kernel> r;
  for (auto& [key, record] : records) {
    if (!record.shape || !usable(*record.shape, record.best)) continue;
    const auto& from = *record.shape;
    if (std::any_of(untuned.begin(), untuned.end(), [&](const kernel_shape& k) { return reusable(from, k); }))
      r.push_back({key, from, record.best});
  }
  return r;
}

/// The reuse plan (plan_reuse) of the kernels `untuned`, which may also start from the kernels
/// `recorded`, tuned already: node i < n is untuned[i], node n + i is recorded[i], whose tuning
/// from scratch costs nothing (it is done), so a kernel starts from it wherever that is the
/// cheapest way. `scratch_cost(i)` is untuned[i]'s; `reuse_cost(from, best, to)` a reuse from
/// kernel `from` whose search will start from `best` (its record's for a recorded kernel; null
/// for a kernel of this plan, whose best is not known yet). No arc enters a recorded kernel.
/// Example: ReLUs 14×14×256 (recorded) and 7×7×256 (untuned): the second reuses node 1.
inline reuse_plan plan_reuse_with_records(
    const std::vector<kernel_shape>& untuned, const std::vector<recorded_kernel>& recorded,
    const std::function<double(std::size_t)>& scratch_cost,
    const std::function<double(const kernel_shape&, const schedule*, const kernel_shape&)>& reuse_cost) {
  const std::size_t n = untuned.size();
  std::vector<kernel_shape> all = untuned;
  for (auto& r : recorded) all.push_back(r.shape);
  return plan_reuse(
      all, [&](std::size_t k) { return k < n ? scratch_cost(k) : 0.0; },
      [&](std::size_t j, std::size_t k) {
        if (k >= n) return std::numeric_limits<double>::infinity();
        return reuse_cost(all[j], j < n ? nullptr : &recorded[j - n].best, all[k]);
      });
}

}  // namespace ein::tune
