// The schedule space of an eOperator's host loop nest: which outer loops its threads share and in
// what chunks, how many outputs its innermost loop computes at once, and a blocking of its two
// innermost loops; today's fixed schedule is one point of it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "ein/tune/kernel_shape.hpp"

namespace ein::tune {

/// One way to run a kernel's loop nest on the host (codegen::emit_host_function).
struct host_schedule {
  /// Outer traversal loops collapsed and shared among an OpenMP team (EIN_PARALLEL_FOR); 0: the
  /// calling thread alone. Never the innermost of two or more loops, which carries the lanes.
  std::size_t parallel_loops = 0;
  /// Iterations of the shared loops a thread takes at a time (OpenMP's static chunk); 0: one
  /// even share per thread. Small chunks even out uneven iterations (padded borders).
  std::int64_t chunk = 0;
  /// Outputs the innermost loop computes together, loading the reads along it as vectors.
  std::int64_t lanes = 1;
  /// A blocking of the two innermost traversal loops into block_rows × block_columns blocks, so
  /// that a read scattered along the innermost loop (a transpose) stays in cache across a block;
  /// both 0: no blocking.
  std::int64_t block_rows = 0, block_columns = 0;

  friend bool operator==(const host_schedule&, const host_schedule&) = default;
  friend auto operator<=>(const host_schedule&, const host_schedule&) = default;
};

/// The constants of today's fixed host schedule, which the default point reproduces and the host
/// emitter (codegen/host.hpp) reads through it.
struct host_fixed {
  /// Lanes of a kernel that sums: 8 floats are one AVX register, and 8 accumulators hide the
  /// latency of the additions. A kernel without a sum takes 1 lane: the compiler vectorizes its
  /// plain loop, while code written lane by lane runs element by element wherever the body
  /// chooses (ReLU, max), a branch a lane on x86-64's baseline instruction set; tuned from
  /// scratch on the host, 71 of the seven models' 77 such kernels ran fastest at 1 lane, a
  /// median 13× faster than at 8 (docs/tuning.md).
  static constexpr std::int64_t lanes = 8;
  /// Below this many multiply-adds starting an OpenMP team costs more than it saves.
  static constexpr std::int64_t parallel_work = std::int64_t{1} << 15;
  /// The shared loops hold this many iterations, so that a batch of 1 still feeds every core.
  static constexpr std::int64_t parallel_iterations = 64;
};

/// The choices each field of a host schedule ranges over; a kernel's points are the
/// combinations host_valid admits.
struct host_choices {
  static constexpr std::int64_t chunks[] = {0, 1, 4, 16, 64};
  static constexpr std::int64_t lanes[] = {1, 2, 4, 8, 16};
  static constexpr std::int64_t block_rows[] = {0, 4, 8, 16, 32, 64};
  static constexpr std::int64_t block_columns[] = {0, 8, 16, 32, 64, 128};
};

/// Iterations of the first `loops` traversal loops of `k`.
inline std::int64_t shared_iterations(const kernel_shape& k, std::size_t loops) {
  std::int64_t n = 1;
  for (std::size_t d = 0; d < loops && d < k.traversal.size(); ++d) n *= k.traversal[d];
  return n;
}

/// The most outer loops a host schedule of `k` may share: all but the innermost of two or more.
inline std::size_t most_parallel_loops(const kernel_shape& k) {
  const std::size_t n = k.traversal.size();
  return n <= 1 ? n : n - 1;
}

/// Whether `s` is a point of `k`'s host space: shared loops within most_parallel_loops (and
/// outside a blocking), a chunk only for shared loops and below their iterations, lanes a power
/// of two up to the reads' widest, and a blocking of two loops or more smaller than both loops
/// (a block as large as its loop is no blocking), its columns a multiple of the lanes.
inline bool host_valid(const kernel_shape& k, const host_schedule& s) {
  const std::size_t n = k.traversal.size();
  const bool blocked = s.block_rows != 0 || s.block_columns != 0;
  const auto in = [](std::int64_t v, const auto& list) { return std::find(std::begin(list), std::end(list), v) != std::end(list); };
  if (s.parallel_loops > most_parallel_loops(k)) return false;
  if (s.chunk != 0 && (s.parallel_loops == 0 || !in(s.chunk, host_choices::chunks) ||
                       s.chunk >= shared_iterations(k, s.parallel_loops)))
    return false;
  if (!in(s.lanes, host_choices::lanes) || s.lanes > k.widest_lanes) return false;
  if (!blocked) return true;
  if (n < 2 || s.parallel_loops > n - 2) return false;
  if (!in(s.block_rows, host_choices::block_rows) || !in(s.block_columns, host_choices::block_columns)) return false;
  return s.block_rows != 0 && s.block_columns != 0 && s.block_rows < k.traversal[n - 2] &&
         s.block_columns < k.traversal[n - 1] && s.block_columns % s.lanes == 0;
}

/// Today's fixed schedule of `k` (codegen::emit_host_function): no threads below
/// host_fixed::parallel_work multiply-adds, else the fewest outer loops holding
/// host_fixed::parallel_iterations (within most_parallel_loops), an even share each; lanes as
/// fixed_lanes at host_fixed::lanes where the kernel sums, else 1; no blocking.
inline host_schedule host_default(const kernel_shape& k) {
  host_schedule s;
  s.lanes = k.summation.empty() ? 1 : fixed_lanes(k, host_fixed::lanes);
  if (k.traversal.empty() || k.work() < host_fixed::parallel_work) return s;
  while (s.parallel_loops < most_parallel_loops(k) &&
         shared_iterations(k, s.parallel_loops) < host_fixed::parallel_iterations)
    ++s.parallel_loops;
  return s;
}

/// Every point of `k`'s host space, in a fixed order (shared loops, chunk, lanes, blocking);
/// host_default(k) is among them.
inline std::vector<host_schedule> host_space(const kernel_shape& k) {
  std::vector<host_schedule> points;
  for (std::size_t loops = 0; loops <= most_parallel_loops(k); ++loops)
    for (auto chunk : host_choices::chunks)
      for (auto lanes : host_choices::lanes)
        for (auto rows : host_choices::block_rows)
          for (auto columns : host_choices::block_columns) {
            host_schedule s{loops, chunk, lanes, rows, columns};
            if (host_valid(k, s)) points.push_back(s);
          }
  return points;
}

}  // namespace ein::tune
