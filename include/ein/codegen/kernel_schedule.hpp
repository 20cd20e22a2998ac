// How an eOperator's CUDA kernel maps its outputs to threads: the index type, how many outputs a
// thread takes per pass, and the shared-memory tile of a read that a warp would otherwise read
// at scattered addresses.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/index.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/precision.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/tune/cuda_schedule.hpp"

namespace ein::codegen {

/// Threads per block of an eOperator kernel under today's fixed schedule (tune::cuda_fixed).
inline constexpr std::int64_t kernel_threads = tune::cuda_fixed::threads;
/// The tile of a staged read: `tile_columns` outputs along x (a warp's), 8, 16 or 32 along y.
inline constexpr std::int64_t tile_columns = tune::cuda_fixed::tile_columns;

/// A read staged through shared memory, tile by tile of the output box over (x, y): x is the
/// innermost traversal iterator (a warp writes consecutive outputs), y one along which `read`
/// is contiguous while it is scattered along x (a relayout's transpose). A block loads the
/// tile's values of `read` with y fastest (coalesced reads), then computes the tile's outputs
/// with x fastest (coalesced writes), reading `read` from the tile.
struct tile_plan {
  ir::access read;
  std::size_t x = 0, y = 0;  // positions in the traversal
  std::int64_t rows = 0;     // the tile's extent along y: 8, 16 or 32
  /// Tiles along x and y.
  std::int64_t columns_of_tiles(const ir::scope& s) const { return (s.traversal[x].extent() + tile_columns - 1) / tile_columns; }
  std::int64_t rows_of_tiles(const ir::scope& s) const { return (s.traversal[y].extent() + rows - 1) / rows; }
};

/// The mapping of one step's kernel: a flat kernel (each thread computes `unroll` items per pass
/// of a grid-stride loop, an item being `lanes` consecutive outputs along the innermost traversal
/// iterator, whose reads in `vectors` load as vectors) or, with `tile`, a tiled one (each block
/// computes one tile per pass). `items` are items (flat) or tiles; a block takes
/// `items_per_block` per pass, `threads` threads per block. Index variables have the C++ type
/// `index`.
struct kernel_schedule {
  std::string index = "std::int64_t";
  std::int64_t threads = kernel_threads;
  std::int64_t unroll = 1;
  std::int64_t lanes = 1;
  std::vector<ir::access> vectors;
  std::optional<tile_plan> tile;
  std::int64_t items = 0;
  std::int64_t items_per_block = 0;
};

namespace detail {

// The largest magnitude of any value the text of `a` computes over `box` (index_text writes the
// terms left to right; a floor division or modulo evaluates its argument first).
inline double magnitude(const ir::affine& a, const iterator_box& box) {
  double total = std::abs(static_cast<double>(a.constant())), inner = 0;
  for (auto& [at, c] : a.terms()) {
    ir::interval t;
    if (at.k == ir::atom::kind::iter) {
      t = box.range.at(at.name);
    } else {
      inner = std::max(inner, magnitude(*at.arg, box));
      t = bounds(at.k == ir::atom::kind::floordiv ? at.arg->floordiv(at.divisor) : at.arg->mod(at.divisor), box);
    }
    total += std::abs(static_cast<double>(c)) *
             std::max(std::abs(static_cast<double>(t.lo)), std::abs(static_cast<double>(t.hi)));
  }
  return std::max(total, inner);
}

// Whether every index value of step `s` (iterators, each index of each read and its flattened
// offset, the output's offset) and every count stays below 2^30 in magnitude: then `int` holds
// them, grid strides included.
inline bool fits_int(const named_kernel& s, const named_plan& plan, const iterator_box& box) {
  constexpr double limit = 1 << 30;
  const buffer& out = plan.buffers[s.target];
  if (static_cast<double>(out.count()) >= limit) return false;
  for (auto* list : {&s.value->traversal, &s.value->summation})
    for (auto& it : *list)
      if (std::abs(static_cast<double>(it.lo)) >= limit || std::abs(static_cast<double>(it.hi)) >= limit) return false;
  for (auto* a : ir::accesses_read(s.value->body)) {
    const buffer& src = plan.buffers[plan.source_of(*a)];
    if (static_cast<double>(src.count()) >= limit) return false;
    for (auto& i : a->index)
      if (magnitude(i, box) >= limit) return false;
    if (magnitude(offset(a->index, src.lower, src.shape), box) >= limit) return false;
  }
  return true;
}

// The tile of `s`'s kernel, if one pays: a read scattered along the innermost traversal
// iterator x (a coefficient other than 0 and ±1 in its flattened offset) and contiguous along
// another traversal iterator y (coefficient ±1), both outside any floor division or modulo, in a
// scope whose sum is short (each summation point loads a tile) and whose x and y extents are at
// least 16 and 4. A max or min scope gets none: the tiled kernel only sums.
inline std::optional<tile_plan> tile_of(const named_kernel& s, const named_plan& plan) {
  const ir::scope& sc = *s.value;
  if (sc.reduce != ir::reduction::sum || sc.traversal.size() < 2 || terms(sc.summation) > unrolled_terms || !sc.body)
    return std::nullopt;
  const std::size_t x = sc.traversal.size() - 1;
  const std::string& xn = sc.traversal[x].name;
  if (sc.traversal[x].extent() < 16) return std::nullopt;
  for (auto* a : ir::accesses_read(sc.body)) {
    const buffer& src = plan.buffers[plan.source_of(*a)];
    ir::affine off = offset(a->index, src.lower, src.shape);
    std::int64_t cx = off.coefficient(xn);
    auto linear_in = [&](const std::string& name) {
      ir::affine bare = off;
      std::int64_t c = off.coefficient(name);
      return !(bare + ir::affine::iter(name) * -c).uses(name);
    };
    if (cx == 0 || cx == 1 || cx == -1 || !linear_in(xn)) continue;
    for (std::size_t y = x; y-- > 0;) {
      auto& it = sc.traversal[y];
      std::int64_t cy = off.coefficient(it.name);
      if ((cy != 1 && cy != -1) || it.extent() < 4 || !linear_in(it.name)) continue;
      std::int64_t rows = it.extent() <= 8 ? 8 : it.extent() <= 16 ? 16 : 32;
      return tile_plan{*a, x, y, rows};
    }
  }
  return std::nullopt;
}

// The lanes of `s`'s flat kernel (kernel_schedule) or host loop nest: `most` (a power of two; 4
// for a kernel) or fewer, halving, consecutive outputs along the innermost traversal iterator x
// where its extent allows and they pay: every read that depends
// on x loads as a vector (x alone with coefficient 1 in its flattened offset, every other term
// and its value at the first lane multiples of the lanes, no padding check on x), or a read that
// does not depend on x is reused across the lanes of a sum. Returns the lanes and the vector reads.
inline std::pair<std::int64_t, std::vector<ir::access>> lanes_of(const named_kernel& s, const named_plan& plan,
                                                                 std::int64_t most = 4) {
  const ir::scope& sc = *s.value;
  if (sc.traversal.empty() || !sc.body) return {1, {}};
  const ir::iterator& x = sc.traversal.back();
  std::int64_t count = most;
  while (count > 1 && x.extent() % count != 0) count /= 2;
  if (count == 1) return {1, {}};
  iterator_box box = make_box(sc);
  std::vector<ir::access> vectors;
  bool reused = false, scattered = false;
  for (auto* a : ir::accesses_read(sc.body)) {
    const buffer& src = plan.buffers[plan.source_of(*a)];
    ir::affine off = offset(a->index, src.lower, src.shape);
    if (pieces_of(*a, plan, box).never) continue;  // the constant 0
    if (!off.uses(x.name)) {
      reused = true;
      continue;
    }
    bool vector = off.coefficient(x.name) == 1 && x.lo % count == 0 && off.constant() % count == 0;
    for (auto& [at, c] : off.terms()) {
      if (at.k == ir::atom::kind::iter && at.name == x.name) continue;
      vector = vector && c % count == 0 && (at.k == ir::atom::kind::iter || !at.arg->uses(x.name));
    }
    for (std::size_t d = 0; d < a->index.size() && vector; ++d) {
      if (!a->index[d].uses(x.name)) continue;
      interval r = bounds(a->index[d], box);
      vector = r.lo >= src.lower[d] && r.hi < src.lower[d] + src.shape[d];  // no padding check
    }
    auto same = [&](const ir::access& v) { return v.source == a->source && v.index == a->index; };
    if (!vector)
      scattered = true;
    else if (std::none_of(vectors.begin(), vectors.end(), same))
      vectors.push_back(*a);
  }
  if (scattered && !(reused && !sc.summation.empty())) return {1, {}};
  if (vectors.empty() && !(reused && !sc.summation.empty())) return {1, {}};
  return {count, vectors};
}

}  // namespace detail

/// The schedule of step `s`'s kernel at point `point` of its CUDA space (tune::cuda_valid of
/// shape_of(s, plan)): `point.threads` per block; a tiled kernel of `point.tile_rows` rows where
/// it has some (over detail::tile_of's staged read), else a flat one of `point.lanes` lanes
/// (their vector reads as detail::lanes_of finds them), taking `point.unroll` items per thread and
/// pass; `int` indices where `point.int_index`. codegen::schedule(s, plan) (kernel_shape.hpp) is
/// today's fixed point. Throws internal_error for a point the step's reads do not allow.
inline kernel_schedule schedule(const named_kernel& s, const named_plan& plan, const tune::cuda_schedule& point) {
  const ir::scope& sc = *s.value;
  kernel_schedule k;
  k.index = point.int_index ? "int" : "std::int64_t";
  k.threads = point.threads;
  if (point.tile_rows != 0) {
    k.tile = detail::tile_of(s, plan);
    if (!k.tile) throw internal_error("codegen::schedule: a tiled point for " + s.function + ", which stages no read");
    k.tile->rows = point.tile_rows;
    k.items = k.tile->columns_of_tiles(sc) * k.tile->rows_of_tiles(sc);
    for (std::size_t d = 0; d < sc.traversal.size(); ++d)
      if (d != k.tile->x && d != k.tile->y) k.items *= sc.traversal[d].extent();
    k.items_per_block = 1;
    return k;
  }
  k.unroll = point.unroll;
  if (point.lanes > 1) {
    std::tie(k.lanes, k.vectors) = detail::lanes_of(s, plan, point.lanes);
    if (k.lanes != point.lanes)
      throw internal_error("codegen::schedule: " + std::to_string(point.lanes) + " lanes for " + s.function +
                           ", whose reads allow " + std::to_string(k.lanes));
  }
  k.items = plan.buffers[s.target].count() / k.lanes;
  k.items_per_block = k.threads * k.unroll;
  return k;
}

}  // namespace ein::codegen
