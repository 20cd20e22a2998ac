// Packed copies of an operand, read through its inferred strides: the weight relayouts that let
// a library with fixed filter formats (cuDNN: KCRS, KRSC) run any matched convolution.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/match/flatten.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

/// The scope L_{d0 in [0,e0), ...} src[unflatten(offset + Σ d_i·stride_i)]: the elements an
/// operand reads, packed row-major in the order of `extents`. `src` is read through its own
/// multi-dimensional index, recovered from the flat offset with floor division and modulo by
/// the source's row-major strides (exact, since the operand reads no padding).
/// Example: extents (2, 3), strides (1, 2) over a source of shape (3, 2) gives the transpose
/// L_{d0,d1} src[(2·d1 + d0) / 2, (2·d1 + d0) % 2].
inline ir::scope_ptr packed_copy(const operand& src, const std::vector<std::int64_t>& extents,
                                 const std::vector<std::int64_t>& strides) {
  std::vector<std::int64_t> shape, lower;
  if (auto* t = std::get_if<ir::tensor>(&src.source)) {
    shape = t->shape;
    lower.assign(shape.size(), 0);
  } else if (auto* s = std::get_if<ir::scope_ptr>(&src.source)) {
    shape = (*s)->shape();
    lower = (*s)->lower();
  } else {
    throw internal_error("packed_copy: the output is not an operand to copy");
  }
  std::vector<ir::iterator> trav;
  ir::affine flat(src.offset);
  for (std::size_t d = 0; d < extents.size(); ++d) {
    std::string n = "d" + std::to_string(d);
    trav.push_back({n, 0, extents[d]});
    flat = flat + ir::idx(n) * strides[d];
  }
  auto st = row_major(shape);
  std::vector<ir::affine> index;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    ir::affine i = flat.floordiv(st[d]);
    index.push_back((d == 0 ? i : i.mod(shape[d])) + lower[d]);
  }
  ir::expr body = std::holds_alternative<ir::tensor>(src.source)
                      ? ir::make_access(std::get<ir::tensor>(src.source), index)
                      : ir::make_access(std::get<ir::scope_ptr>(src.source), index);
  return ir::make_scope(trav, {}, body);
}

/// A convolution instance whose filter is read from a packed copy.
struct repacked {
  ir::scope_ptr filter;  // the copy: evaluate it at generation time (weights are known)
  instance op;           // the same convolution reading `filter`
};

/// Rewrites a conv2d or conv_transpose2d instance to read a packed copy of its filter in
/// `layout`: "krsc" (cuDNN's NHWC filter format) or "kcrs" (NCHW).
/// Example: the canonical Conv's K[r, s, f, c] gives the copy L_{k,r,s,c} K[...] and an
/// instance with filter_format "krsc".
inline repacked repack_filter(const instance& conv, std::string_view layout = "krsc") {
  if (!std::holds_alternative<conv_attrs>(conv.attrs))
    throw internal_error(std::string("repack_filter: not a convolution: ") + name(conv.kind));
  if (layout != "krsc" && layout != "kcrs")
    throw internal_error("repack_filter: unknown filter layout " + std::string(layout));
  auto a = conv.conv();
  // operator dimensions (k, c, r, s) in storage order
  std::array<int, 4> order = layout == "krsc" ? std::array{0, 2, 3, 1} : std::array{0, 1, 2, 3};
  std::array<std::int64_t, 4> ext{a.k, a.filter_channels(), a.r, a.s};
  std::vector<std::int64_t> extents, strides;
  for (int d : order) extents.push_back(ext[d]), strides.push_back(a.w_strides[d]);
  repacked r;
  r.filter = packed_copy(conv.inputs[1], extents, strides);
  std::int64_t stride = 1;
  for (int j = 3; j >= 0; --j) {
    a.w_strides[order[j]] = stride;
    stride *= ext[order[j]];
  }
  a.filter_format = std::string(layout);
  r.op = conv;
  r.op.attrs = a;
  r.op.inputs[1].source = r.filter;
  r.op.inputs[1].offset = 0;
  r.op.inputs[1].elements = stride;
  return r;
}

}  // namespace ein::match
