// Flattened views of a scope's accesses: zero-based per-dimension indices, bounds, and the
// linear offset Σ coeff·iter + base of EinNet §5.1 step 3 (Figure 8 c–d).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

/// An iterator of the scope being matched, after normalization: it runs over [0, extent).
struct loop {
  std::string name;
  std::int64_t lo = 0, extent = 1;
  bool summed = false;
};
/// The iterators of a scope with extent > 1, by name. Extent-1 iterators are constants.
using loops = std::map<std::string, loop>;

/// Row-major strides of a shape.
inline std::vector<std::int64_t> row_major(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

/// One operand seen through its flattened source: `index[d]` is the d-th index with every
/// iterator shifted to start at 0 and the box's lower corner subtracted, so it reads real data
/// iff it lies in [0, shape[d]).
struct view {
  const ir::access* node = nullptr;  // the access; nullptr for the scope's own value
  operand bound;  // the source and its size; offset/role are filled in by an operator
  ir::dtype type = ir::dtype::f32;
  std::vector<std::int64_t> shape, strides;
  std::vector<ir::affine> index;
  bool linear = true;
  std::set<std::string> used;  // every iterator some index reads

  std::int64_t rank() const { return static_cast<std::int64_t>(index.size()); }
  bool uses(const std::string& i) const { return used.count(i) != 0; }
  /// Smallest and largest value of dimension d's index over the iterator box.
  std::pair<std::int64_t, std::int64_t> range(std::size_t d, const loops& it) const {
    std::int64_t lo = index[d].constant(), hi = lo;
    for (auto& [a, c] : index[d].terms()) {
      std::int64_t span = c * (it.at(a.name).extent - 1);
      (span < 0 ? lo : hi) += span;
    }
    return {lo, hi};
  }
  bool dim_in_bounds(std::size_t d, const loops& it) const {
    auto [lo, hi] = range(d, it);
    return lo >= 0 && hi < shape[d];
  }
  /// Every dimension reads real data: flattening is exact (no padding is involved).
  bool in_bounds(const loops& it) const {
    if (!linear) return false;
    for (std::size_t d = 0; d < index.size(); ++d)
      if (!dim_in_bounds(d, it)) return false;
    return true;
  }
  /// Flattened coefficient of iterator i over the dimensions selected by `dims` (all if empty).
  std::int64_t coefficient(const std::string& i, const std::vector<bool>& dims = {}) const {
    std::int64_t c = 0;
    for (std::size_t d = 0; d < index.size(); ++d)
      if (dims.empty() || dims[d]) c += strides[d] * index[d].coefficient(i);
    return c;
  }
  /// Flattened constant over the selected dimensions (all if empty).
  std::int64_t base(const std::vector<bool>& dims = {}) const {
    std::int64_t b = 0;
    for (std::size_t d = 0; d < index.size(); ++d)
      if (dims.empty() || dims[d]) b += strides[d] * index[d].constant();
    return b;
  }
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

/// The substitution that normalizes a scope's iterators: i ↦ i + lo, or the constant lo when the
/// extent is 1 (such an iterator selects one element and takes no part in any group).
inline std::map<std::string, ir::affine> normalizer(const ir::scope& s) {
  std::map<std::string, ir::affine> m;
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list) m[i.name] = i.extent() == 1 ? ir::affine(i.lo) : ir::idx(i.name) + i.lo;
  return m;
}

inline loops scope_loops(const ir::scope& s) {
  loops l;
  for (auto& i : s.traversal)
    if (i.extent() > 1) l[i.name] = {i.name, i.lo, i.extent(), false};
  for (auto& i : s.summation)
    if (i.extent() > 1) l[i.name] = {i.name, i.lo, i.extent(), true};
  return l;
}

/// The view of one access of the body.
inline view access_view(const ir::access& a, const std::map<std::string, ir::affine>& norm) {
  view v;
  v.node = &a;
  if (auto* t = std::get_if<ir::tensor>(&a.source)) {
    v.bound.source = *t;
    v.type = t->type;
  } else {
    v.bound.source = std::get<ir::scope_ptr>(a.source);
  }
  v.shape = ir::source_shape(a);
  v.strides = row_major(v.shape);
  auto lower = ir::source_lower(a);
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    v.index.push_back(a.index[d].substitute(norm) - lower[d]);
    v.linear = v.linear && v.index.back().is_linear();
    v.index.back().collect_iterators(v.used);
  }
  v.bound.elements = v.elements();
  return v;
}

/// The view of the scope's own value: dense, row-major over the traversal.
inline view output_view(const ir::scope& s, const std::map<std::string, ir::affine>& norm) {
  view v;
  v.shape = s.shape();
  v.strides = row_major(v.shape);
  for (auto& i : s.traversal) {
    v.index.push_back(ir::idx(i.name).substitute(norm) - i.lo);
    v.index.back().collect_iterators(v.used);
  }
  v.bound.elements = v.elements();
  return v;
}

/// A group of iterators merged into one operator iterator: extent Π extents, and its stride in
/// each operand (the stride of the innermost iterator).
struct merged {
  std::vector<std::string> order;  // outermost first
  std::int64_t extent = 1;
  std::vector<std::int64_t> stride;  // per operand given to merge(), 0 if extent is 1
};

/// Merges `iters` into one iterator when they are flattenable: ordered by decreasing stride, the
/// stride of each equals the next one's stride times its extent, in EVERY operand, with the
/// same order, and every stride is positive. `dims` restricts each operand's flattening to some
/// dimensions (empty: all). Iterators of extent 1 never reach here (they are constants).
/// Example: m = (t1, t2) in A[t1, t2, c] and O[t1, t2, f] with t2 of extent W merges into one
/// iterator of extent T1·W and strides (W·C, W·F); in A[t2, t1, c] it does not (order differs).
inline std::optional<merged> merge(const std::vector<std::string>& iters,
                                   const std::vector<const view*>& where, const loops& it,
                                   const std::vector<std::vector<bool>>& dims = {}) {
  merged g;
  g.stride.assign(where.size(), 0);
  if (iters.empty()) return g;
  auto dim_mask = [&](std::size_t t) { return dims.empty() ? std::vector<bool>{} : dims[t]; };
  g.order = iters;
  auto c0 = [&](const std::string& i) { return where[0]->coefficient(i, dim_mask(0)); };
  std::sort(g.order.begin(), g.order.end(),
            [&](const std::string& a, const std::string& b) { return c0(a) > c0(b); });
  for (auto& i : g.order) g.extent *= it.at(i).extent;
  for (std::size_t t = 0; t < where.size(); ++t) {
    for (std::size_t j = 0; j < g.order.size(); ++j) {
      std::int64_t c = where[t]->coefficient(g.order[j], dim_mask(t));
      if (c <= 0) return std::nullopt;
      if (j + 1 < g.order.size()) {
        auto& inner = g.order[j + 1];
        if (c != where[t]->coefficient(inner, dim_mask(t)) * it.at(inner).extent)
          return std::nullopt;
      }
    }
    g.stride[t] = where[t]->coefficient(g.order.back(), dim_mask(t));
  }
  return g;
}

}  // namespace ein::match
