// The schedule space of an eOperator's CUDA kernel: threads per block, outputs per thread and
// their vector width for a flat kernel, the tile of a staged read for a tiled one, and the index
// type; today's fixed schedule (codegen::schedule) is one point of it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "ein/tune/kernel_shape.hpp"

namespace ein::tune {

/// One way to map a kernel's outputs onto CUDA threads (codegen::kernel_schedule).
struct cuda_schedule {
  /// Threads per block (the kernel's __launch_bounds__ and its launch).
  std::int64_t threads = 256;
  /// Items a thread of a flat kernel takes per pass, `threads` apart so that each load and store
  /// stays coalesced: independent loads in flight hide memory latency. 1 in a tiled kernel.
  std::int64_t unroll = 1;
  /// Outputs of an item along the innermost traversal iterator, their reads loaded as vectors
  /// (16 bytes of floats at most). 1 in a tiled kernel.
  std::int64_t lanes = 1;
  /// 0: a flat kernel; else a tiled one, the staged read's tile 32 outputs along the innermost
  /// iterator by this many along kernel_shape::staged_y.
  std::int64_t tile_rows = 0;
  /// `int` index variables (fewer registers, cheaper division) where every index fits.
  bool int_index = false;

  friend bool operator==(const cuda_schedule&, const cuda_schedule&) = default;
  friend auto operator<=>(const cuda_schedule&, const cuda_schedule&) = default;
};

/// The constants of today's fixed CUDA schedule (codegen/kernel_schedule.hpp: kernel_threads,
/// flat_unroll, tile_columns; codegen/eoperator.hpp: unrolled_terms), which the default reproduces.
struct cuda_fixed {
  static constexpr std::int64_t threads = 256;
  static constexpr std::int64_t unroll = 4;  // where a sum has at most unrolled_terms terms
  static constexpr std::int64_t unrolled_terms = 32;
  static constexpr std::int64_t lanes = 4;
  static constexpr std::int64_t tile_columns = 32;  // a warp's consecutive outputs
  static constexpr std::int64_t max_threads = 1024;  // a block's most, 64 registers a thread
};

/// The choices each field of a CUDA schedule ranges over; a kernel's points are the
/// combinations cuda_valid admits.
struct cuda_choices {
  static constexpr std::int64_t threads[] = {64, 128, 256, 512, 1024};
  static constexpr std::int64_t unroll[] = {1, 2, 4, 8};
  static constexpr std::int64_t lanes[] = {1, 2, 4};
  static constexpr std::int64_t tile_rows[] = {0, 8, 16, 32};
};

/// The tile rows today's schedule gives a staged read along an iterator of `extent`: the
/// fewest of 8, 16 and 32 that cover it, else 32.
inline std::int64_t fixed_tile_rows(std::int64_t extent) { return extent <= 8 ? 8 : extent <= 16 ? 16 : 32; }

/// Whether `s` is a point of `k`'s CUDA space: threads among the choices; a flat kernel with
/// unroll among the choices (more than 1 only where the sum has at most
/// cuda_fixed::unrolled_terms terms, as today's rule: unrolled long sums spill registers) and
/// lanes a power of two up to the reads' widest, one item of one lane per thread and pass at
/// cuda_fixed::max_threads (a block that large leaves a thread 64 registers, which several
/// outputs' unrolled sums spill out of); a tiled kernel
/// only where a read is staged, with rows no more than fixed_tile_rows (more would cover only
/// outputs outside the box), a whole number of tile rows per thread (threads dividing 32 ×
/// rows), unroll and lanes 1; `int` indices only where they fit.
inline bool cuda_valid(const kernel_shape& k, const cuda_schedule& s) {
  const auto in = [](std::int64_t v, const auto& list) { return std::find(std::begin(list), std::end(list), v) != std::end(list); };
  if (!in(s.threads, cuda_choices::threads) || (s.int_index && !k.int_indices)) return false;
  if (s.tile_rows == 0)
    return in(s.unroll, cuda_choices::unroll) && (s.unroll == 1 || k.terms() <= cuda_fixed::unrolled_terms) &&
           in(s.lanes, cuda_choices::lanes) && s.lanes <= k.widest_lanes &&
           (s.threads < cuda_fixed::max_threads || s.unroll * s.lanes == 1);
  if (!k.staged_y || !in(s.tile_rows, cuda_choices::tile_rows) || s.unroll != 1 || s.lanes != 1) return false;
  const std::int64_t tile = cuda_fixed::tile_columns * s.tile_rows;
  return s.tile_rows <= fixed_tile_rows(k.traversal.at(*k.staged_y)) && s.threads <= tile && tile % s.threads == 0;
}

/// Today's fixed schedule of `k` (codegen::schedule): cuda_fixed::threads per block; tiled where
/// a read is staged, rows as fixed_tile_rows; else flat, cuda_fixed::unroll items per thread
/// where the sum is short (1 otherwise) and lanes as fixed_lanes at cuda_fixed::lanes; `int`
/// indices where they fit.
inline cuda_schedule cuda_default(const kernel_shape& k) {
  cuda_schedule s;
  s.threads = cuda_fixed::threads;
  s.int_index = k.int_indices;
  if (k.staged_y) {
    s.tile_rows = fixed_tile_rows(k.traversal.at(*k.staged_y));
    return s;
  }
  s.unroll = k.terms() <= cuda_fixed::unrolled_terms ? cuda_fixed::unroll : 1;
  s.lanes = fixed_lanes(k, cuda_fixed::lanes);
  return s;
}

/// Every point of `k`'s CUDA space, in a fixed order (index type, tile, threads, unroll, lanes);
/// cuda_default(k) is among them.
inline std::vector<cuda_schedule> cuda_space(const kernel_shape& k) {
  std::vector<cuda_schedule> points;
  for (bool int_index : {false, true})
    for (auto rows : cuda_choices::tile_rows)
      for (auto threads : cuda_choices::threads)
        for (auto unroll : cuda_choices::unroll)
          for (auto lanes : cuda_choices::lanes) {
            cuda_schedule s{threads, unroll, lanes, rows, int_index};
            if (cuda_valid(k, s)) points.push_back(s);
          }
  return points;
}

}  // namespace ein::tune
