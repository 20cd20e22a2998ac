// The reuse-based host search's candidates: where another kernel's best host schedule starts the
// search of a kernel, and the points one choice away from that start.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <variant>
#include <vector>

#include "ein/tune/host_schedule.hpp"
#include "ein/tune/kernel_shape.hpp"
#include "ein/tune/recorded_sources.hpp"
#include "ein/tune/reuse_plan.hpp"

namespace ein::tune {

namespace detail {

// The choice of `list` nearest `target` by ratio (the smaller on a tie) among those `admits`
// accepts; 0 where it accepts none.
template <class List, class Admits>
std::int64_t nearest_choice(double target, const List& list, Admits admits) {
  std::int64_t best = 0;
  double distance = 0;
  for (auto c : list) {
    if (c == 0 || !admits(c)) continue;
    const double d = std::abs(std::log2(static_cast<double>(c) / target));
    if (best == 0 || d < distance) {
      best = c;
      distance = d;
    }
  }
  return best;
}

// `v` scaled by the ratio of extents `to` over `from`.
inline double scaled(std::int64_t v, std::int64_t from, std::int64_t to) {
  return static_cast<double>(v) * static_cast<double>(to) / static_cast<double>(from);
}

// The choice `steps` places from `v` in `list`, or -1 where there is none (or `v` is not in it).
template <class List>
std::int64_t moved(std::int64_t v, const List& list, int steps) {
  const auto n = static_cast<std::ptrdiff_t>(std::size(list));
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (list[i] == v) return i + steps >= 0 && i + steps < n ? list[i + steps] : -1;
  return -1;
}

}  // namespace detail

/// Where the search of `to` starts from `best`, the best host schedule of `from` (decision 0029,
/// reuse-based): the same shared loops (at most most_parallel_loops(to)); the chunk, lanes and
/// block scaled by the ratio of the extents they cover (the shared iterations, the innermost
/// loop, the two innermost loops), each the nearest choice of `to`'s space (a chunk below the
/// shared iterations, lanes up to the reads' widest, a block inside its loops with columns a
/// multiple of the lanes; none fitting: no chunk, no block). Always a point of `to`'s space.
/// Example: best {1 loop, chunk 16, 8 lanes} of a 32×64 kernel, `to` 8×16 (lanes up to 16):
/// {1 loop, chunk 4, 2 lanes}.
inline host_schedule host_reuse_start(const kernel_shape& from, const host_schedule& best, const kernel_shape& to) {
  host_schedule s;
  s.parallel_loops = std::min(best.parallel_loops, most_parallel_loops(to));
  // `v` scaled by the extents of the loop `back` from the innermost (1: the innermost)
  const auto ratio = [&](std::int64_t v, std::size_t back) {
    if (from.traversal.size() < back || to.traversal.size() < back) return static_cast<double>(v);
    return detail::scaled(v, from.traversal[from.traversal.size() - back], to.traversal[to.traversal.size() - back]);
  };
  const std::int64_t shared = shared_iterations(to, s.parallel_loops);
  if (s.parallel_loops > 0 && best.chunk != 0)
    s.chunk = detail::nearest_choice(detail::scaled(best.chunk, shared_iterations(from, best.parallel_loops), shared),
                                     host_choices::chunks, [&](std::int64_t c) { return c < shared; });
  s.lanes = detail::nearest_choice(ratio(best.lanes, 1), host_choices::lanes,
                                   [&](std::int64_t l) { return l <= to.widest_lanes; });
  const std::size_t n = to.traversal.size();
  if (best.block_rows != 0 && n >= 2 && s.parallel_loops <= n - 2) {
    s.block_rows = detail::nearest_choice(ratio(best.block_rows, 2), host_choices::block_rows,
                                          [&](std::int64_t r) { return r < to.traversal[n - 2]; });
    s.block_columns =
        detail::nearest_choice(ratio(best.block_columns, 1), host_choices::block_columns,
                               [&](std::int64_t c) { return c < to.traversal[n - 1] && c % s.lanes == 0; });
    if (s.block_rows == 0 || s.block_columns == 0) s.block_rows = s.block_columns = 0;
  }
  return host_valid(to, s) ? s : host_default(to);
}

/// `start` and the points of `k`'s space one choice away from it along one field (ETO's ranges,
/// Algorithm 1): one shared loop more or fewer; the next chunk, lanes up or down; the block one
/// choice taller, shorter, wider or narrower (below the smallest: no block), or from no block
/// the smallest whose columns are a multiple of the lanes. Each point once, `start` first.
/// Example: {1 loop, chunk 4, 2 lanes} of an 8×16 kernel (lanes up to 16): itself, no shared
/// loop, chunk 1 (16 is not below 8 iterations), 1 and 4 lanes (no block: its loop is shared);
/// 5 points.
inline std::vector<host_schedule> host_neighbourhood(const kernel_shape& k, const host_schedule& start) {
  std::vector<host_schedule> r{start};
  const auto add = [&](const host_schedule& p) {
    if (host_valid(k, p) && std::find(r.begin(), r.end(), p) == r.end()) r.push_back(p);
  };
  for (int d : {-1, 1}) {
    host_schedule p = start;
    if (d < 0 && p.parallel_loops == 0) continue;
    p.parallel_loops = d < 0 ? p.parallel_loops - 1 : p.parallel_loops + 1;
    if (p.parallel_loops == 0) p.chunk = 0;  // a chunk only shares loops
    add(p);
  }
  for (int d : {-1, 1}) {
    host_schedule p = start;
    if ((p.chunk = detail::moved(start.chunk, host_choices::chunks, d)) >= 0) add(p);
    p = start;
    if ((p.lanes = detail::moved(start.lanes, host_choices::lanes, d)) >= 0) add(p);
  }
  if (start.block_rows == 0) {
    host_schedule p = start;
    p.block_rows = host_choices::block_rows[1];
    for (auto c : host_choices::block_columns)
      if (c != 0 && c % start.lanes == 0) {
        p.block_columns = c;
        break;
      }
    add(p);
  } else {
    for (int d : {-1, 1}) {
      host_schedule p = start;
      p.block_rows = detail::moved(start.block_rows, host_choices::block_rows, d);
      if (p.block_rows == 0) p.block_columns = 0;
      if (p.block_rows >= 0) add(p);
      p = start;
      p.block_columns = detail::moved(start.block_columns, host_choices::block_columns, d);
      if (p.block_columns == 0) p.block_rows = 0;
      if (p.block_columns >= 0) add(p);
    }
  }
  return r;
}

/// The reuse plan of host kernels `shapes` (tune::plan_reuse_with_records), which may also start
/// from the kernels `recorded` (tuned already), under the costs the host tuner's searches take:
/// from scratch, the smaller of the space's size and `trials`; by reuse, the default and the
/// neighbourhood of where the source's best maps (a recorded kernel's; for a kernel of this plan,
/// whose best is not known when the plan is made, its default's).
inline reuse_plan plan_host_reuse(const std::vector<kernel_shape>& shapes, std::int64_t trials,
                                  const std::vector<recorded_kernel>& recorded = {}) {
  return plan_reuse_with_records(
      shapes, recorded,
      [&](std::size_t k) {
        return static_cast<double>(std::min(static_cast<std::int64_t>(host_space(shapes[k]).size()), trials));
      },
      [&](const kernel_shape& from, const schedule* best, const kernel_shape& to) {
        const auto start = host_reuse_start(from, best ? std::get<host_schedule>(*best) : host_default(from), to);
        return static_cast<double>(1 + host_neighbourhood(to, start).size());
      });
}

}  // namespace ein::tune
