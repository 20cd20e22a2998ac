// Index arithmetic the converters share: iterators over a shape, ONNX's broadcasting, axes that
// count from the end, and the row-major reindexing of a reshape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/onnx/node.hpp"

namespace ein::onnx {

/// Iterators `<prefix>0`, `<prefix>1`, ... over [0, shape[d]).
inline std::vector<ir::iterator> iterators(const std::vector<std::int64_t>& shape, const std::string& prefix = "i") {
  std::vector<ir::iterator> v;
  for (std::size_t d = 0; d < shape.size(); ++d) v.push_back({prefix + std::to_string(d), 0, shape[d]});
  return v;
}

/// The iterators as indices.
inline std::vector<ir::affine> indices(const std::vector<ir::iterator>& its) {
  std::vector<ir::affine> v;
  for (auto& i : its) v.push_back(ir::idx(i.name));
  return v;
}

inline std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

/// `axis` of a tensor of rank `rank` as a position in [0, rank) (ONNX counts negative axes from
/// the end).
inline std::size_t axis_of(const node_context& n, std::int64_t axis, std::size_t rank, const std::string& what) {
  auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    n.fail("attribute or input `" + what + "` is " + std::to_string(axis) + ", outside [" + std::to_string(-r) + ", " +
           std::to_string(r - 1) + "] for rank " + std::to_string(rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

/// ONNX's multidirectional broadcasting of `a` and `b` (numpy's): shapes aligned at the end, an
/// extent 1 stretched to the other.
inline std::vector<std::int64_t> broadcast(const node_context& n, const std::vector<std::int64_t>& a,
                                           const std::vector<std::int64_t>& b) {
  std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    std::int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    std::int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1)
      n.fail("shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast (axis " + std::to_string(d) +
             ": " + std::to_string(x) + " against " + std::to_string(y) + ")");
    out[d] = x == 1 ? y : x;
  }
  return out;
}

/// `x` read at the output iterators `out` it broadcasts to: its axes aligned with the last ones
/// of `out`, an axis of extent 1 read at 0.
inline ir::expr broadcast_read(const operand& x, const std::vector<ir::iterator>& out) {
  std::vector<ir::affine> index;
  std::size_t skip = out.size() - x.rank();
  for (std::size_t d = 0; d < x.rank(); ++d)
    index.push_back(x.shape[d] == 1 && out[skip + d].extent() != 1 ? ir::affine(0) : ir::idx(out[skip + d].name));
  return x.read(std::move(index));
}

inline std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

/// The indices into a row-major tensor of shape `from` of the element at `index` of the same
/// elements laid out as `to` (a reshape): the leading axes the shapes share are indexed alike,
/// the rest through the flat position ℓ of the element among them,
///   from index d = ⌊ℓ / stride_d⌋ mod from[d].
inline std::vector<ir::affine> reshaped(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to,
                                        const std::vector<ir::affine>& index) {
  std::size_t p = 0;
  while (p < from.size() && p < to.size() && from[p] == to[p]) ++p;
  std::vector<ir::affine> out(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(p));
  ir::affine flat(0);
  std::int64_t stride = 1;
  for (std::size_t d = to.size(); d-- > p;) {
    if (to[d] != 1) flat = flat + index[d] * stride;
    stride *= to[d];
  }
  stride = 1;
  std::vector<ir::affine> rest(from.size() - p);
  for (std::size_t d = from.size(); d-- > p;) {
    ir::affine digit = flat.floordiv(stride);
    // The outermost axis needs no modulo: the flat position stays below the element count.
    rest[d - p] = from[d] == 1 ? ir::affine(0) : d == p ? digit : digit.mod(from[d]);
    stride *= from[d];
  }
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace ein::onnx
