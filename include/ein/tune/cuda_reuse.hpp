// The reuse-based CUDA search's candidates: where another kernel's best CUDA schedule starts the
// search of a kernel, and the points one choice away from that start.
#pragma once

#include <algorithm>
#include <cstdint>
#include <variant>
#include <vector>

#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/host_reuse.hpp"
#include "ein/tune/kernel_shape.hpp"
#include "ein/tune/recorded_sources.hpp"
#include "ein/tune/reuse_plan.hpp"

namespace ein::tune {

/// Where the search of `to` starts from `best`, the best CUDA schedule of `from` (decision 0029,
/// reuse-based): the same threads per block and index type (`int` only where `to`'s indices fit);
/// tiled where `best` is and `to` stages a read, its rows `best`'s up to what `to`'s tile covers;
/// else flat, `best`'s unroll (the default's where `best` is tiled or `to`'s sum is long) and its
/// lanes scaled by the ratio of the innermost extents, the nearest choice up to the reads'
/// widest. A point that breaks a rule of `to`'s space (the threads do not divide the tile) is
/// `to`'s default.
/// Example: best {128 threads, unroll 8, 4 lanes} of a 64×64 kernel, `to` 64×16 (lanes up to 4):
/// {128 threads, unroll 8, 1 lane}.
inline cuda_schedule cuda_reuse_start(const kernel_shape& from, const cuda_schedule& best, const kernel_shape& to) {
  cuda_schedule s;
  s.threads = best.threads;
  s.int_index = best.int_index && to.int_indices;
  if (best.tile_rows != 0 && to.staged_y) {
    s.tile_rows = std::min(best.tile_rows, fixed_tile_rows(to.traversal.at(*to.staged_y)));
  } else {
    const cuda_schedule fixed = cuda_default(to);
    s.unroll = best.tile_rows != 0 || to.terms() > cuda_fixed::unrolled_terms ? fixed.unroll : best.unroll;
    const double lanes = from.traversal.empty() || to.traversal.empty()
                             ? static_cast<double>(best.lanes)
                             : detail::scaled(best.lanes, from.traversal.back(), to.traversal.back());
    s.lanes = detail::nearest_choice(lanes, cuda_choices::lanes, [&](std::int64_t l) { return l <= to.widest_lanes; });
  }
  return cuda_valid(to, s) ? s : cuda_default(to);
}

/// `start` and the points of `k`'s space one choice away from it along one field (ETO's ranges,
/// Algorithm 1): threads per block, unroll and lanes one choice up or down; the tile one row
/// choice taller or shorter (below the smallest: flat, one item of one lane; from flat: the
/// smallest tile); the other index type. Each point once, `start` first.
/// Example: {256 threads, unroll 4, 4 lanes, int} of a flat 64×64 kernel (lanes up to 16):
/// itself, 128 and 512 threads, unroll 2 and 8, 2 lanes (8 is no choice), `std::int64_t`
/// indices; 7 points.
inline std::vector<cuda_schedule> cuda_neighbourhood(const kernel_shape& k, const cuda_schedule& start) {
  std::vector<cuda_schedule> r{start};
  const auto add = [&](const cuda_schedule& p) {
    if (cuda_valid(k, p) && std::find(r.begin(), r.end(), p) == r.end()) r.push_back(p);
  };
  for (int d : {-1, 1}) {
    cuda_schedule p = start;
    if ((p.threads = detail::moved(start.threads, cuda_choices::threads, d)) >= 0) add(p);
    p = start;
    if ((p.unroll = detail::moved(start.unroll, cuda_choices::unroll, d)) >= 0) add(p);
    p = start;
    if ((p.lanes = detail::moved(start.lanes, cuda_choices::lanes, d)) >= 0) add(p);
    p = start;
    if ((p.tile_rows = detail::moved(start.tile_rows, cuda_choices::tile_rows, d)) >= 0) {
      p.unroll = p.lanes = 1;  // a tiled kernel's, and the flat one's nearest it
      add(p);
    }
  }
  cuda_schedule p = start;
  p.int_index = !start.int_index;
  add(p);
  return r;
}

/// The reuse plan of CUDA kernels `shapes` (tune::plan_reuse_with_records), which may also start
/// from the kernels `recorded` (tuned already), under the costs the CUDA tuner's searches take:
/// from scratch, the smaller of the space's size and `trials`; by reuse, the default and the
/// neighbourhood of where the source's best maps (a recorded kernel's; for a kernel of this plan,
/// whose best is not known when the plan is made, its default's).
inline reuse_plan plan_cuda_reuse(const std::vector<kernel_shape>& shapes, std::int64_t trials,
                                  const std::vector<recorded_kernel>& recorded = {}) {
  return plan_reuse_with_records(
      shapes, recorded,
      [&](std::size_t k) {
        return static_cast<double>(std::min(static_cast<std::int64_t>(cuda_space(shapes[k]).size()), trials));
      },
      [&](const kernel_shape& from, const schedule* best, const kernel_shape& to) {
        const auto start = cuda_reuse_start(from, best ? std::get<cuda_schedule>(*best) : cuda_default(from), to);
        return static_cast<double>(1 + cuda_neighbourhood(to, start).size());
      });
}

}  // namespace ein::tune
