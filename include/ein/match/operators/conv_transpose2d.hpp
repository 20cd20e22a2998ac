// ConvTranspose2d in gather form: O[n, h, w, f] = Σ_{i,j,c} A[n, i, j, c] · K[h − st·i + pad,
// w − st·j + pad, f, c], any layout; matched as cuDNN's backward-data pass of a convolution.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/match/operators/conv2d.hpp"

namespace ein::match::operators {

/// Padding after the last output row that makes the forward convolution of the output extent H
/// (kernel R, stride st, padding pad) produce exactly I rows; pad itself when it does (symmetric).
inline std::optional<std::int64_t> transposed_pad_end(std::int64_t H, std::int64_t I,
                                                      std::int64_t R, std::int64_t st,
                                                      std::int64_t pad) {
  // I = floor((H + pad + pad_end − R) / st) + 1  ⇔  lo ≤ pad_end < lo + st
  std::int64_t lo = st * (I - 1) + R - H - pad;
  if (pad >= lo && pad < lo + st) return pad;
  std::int64_t e = std::max<std::int64_t>(0, lo);
  if (e >= lo + st) return std::nullopt;
  return e;
}

/// Attributes for one choice of the filter's spatial dimensions.
inline std::optional<instance> conv_transpose_for(const binding& bd,
                                                  const std::array<spatial_dim, 2>& sp) {
  const view &dy = bd.in[0], &wt = bd.in[1], &dx = bd.out;
  auto& it = bd.iters;
  const auto in_bounds = spatial_rest(wt, sp, it);
  if (!in_bounds) return std::nullopt;
  const std::vector<bool>& rest = *in_bounds;
  auto gn = merge(bd.column_of("n"), {&dy, &dx}, it);
  auto gc = merge(without(bd.column_of("c"), sp, true), {&dy, &wt}, it, {{}, rest});
  auto gf = merge(without(bd.column_of("f"), sp, false), {&wt, &dx}, it, {rest, {}});
  if (!gn || !gc || !gf) return std::nullopt;
  conv_attrs a;
  a.n = gn->extent, a.k = gc->extent, a.c = gf->extent, a.alpha = bd.alpha;
  std::array<std::int64_t, 2> ext{}, kern{}, in{}, xs{}, ws{}, ys{}, pad{}, pad_end{}, st{};
  for (int j = 0; j < 2; ++j) {
    auto& s = sp[j];
    if (!s.real) {
      ext[j] = kern[j] = in[j] = xs[j] = ws[j] = ys[j] = st[j] = 1;
      continue;
    }
    if (s.a != 1 || s.c0 < 0) return std::nullopt;
    ext[j] = s.out_it.empty() ? 1 : it.at(s.out_it).extent;
    in[j] = s.kernel_it.empty() ? 1 : it.at(s.kernel_it).extent;
    st[j] = s.kernel_it.empty() ? 1 : -s.b;
    kern[j] = wt.shape[s.dim], pad[j] = s.c0;
    auto e = transposed_pad_end(ext[j], in[j], kern[j], st[j], pad[j]);
    if (!e) return std::nullopt;
    pad_end[j] = *e;
    ws[j] = wt.strides[s.dim], xs[j] = s.out_it.empty() ? 1 : dx.coefficient(s.out_it);
    ys[j] = s.kernel_it.empty() ? 1 : dy.coefficient(s.kernel_it);
    if (ys[j] <= 0) return std::nullopt;
  }
  a.h = ext[0], a.w = ext[1], a.r = kern[0], a.s = kern[1], a.p = in[0], a.q = in[1];
  a.pad_h = pad[0], a.pad_w = pad[1], a.pad_h_end = pad_end[0], a.pad_w_end = pad_end[1];
  a.stride_h = st[0], a.stride_w = st[1];
  a.backward_data = true;
  a.x_strides = {gn->stride[1], gf->stride[1], xs[0], xs[1]};
  a.w_strides = {gc->stride[1], gf->stride[0], ws[0], ws[1]};
  a.y_strides = {gn->stride[0], gc->stride[0], ys[0], ys[1]};
  name_layouts(a);
  instance r;
  r.kind = op_kind::conv_transpose2d;
  bind_operands(r, bd, {dy.base(), wt.base(rest)});
  r.inputs[0].role = "dy", r.inputs[1].role = "w", r.output.role = "dx";
  double e = static_cast<double>(ir::element_bytes(r.type));
  double n = static_cast<double>(a.n), c = static_cast<double>(a.c), k = static_cast<double>(a.k),
         pq = static_cast<double>(a.p * a.q), rs = static_cast<double>(a.r * a.s);
  r.flops = 2 * n * k * pq * c * rs;
  r.bytes = e * (n * k * pq + k * c * rs + n * c * static_cast<double>(a.h * a.w));
  r.grid = {1, a.n * a.h * a.w, a.c};
  r.attrs = a;
  return r;
}

/// cuDNN's backward data: dx[n,c,h,w] = alpha Σ dy[n,k,p,q] · w[k,c,r,s] over the pairs of the
/// forward convolution.
inline void conv_transpose2d_execute(const instance& op, const double* dy, const double* w, double* dx) {
  auto& a = op.conv();
  zero(dx, a.x_strides, {a.n, a.c, a.h, a.w});
  conv_pairs(a, [&](auto n, auto k, auto p, auto q, auto c, auto r, auto s, auto h, auto v) {
    dx[at(a.x_strides, n, c, h, v)] += a.alpha * w[at(a.w_strides, k, c, r, s)] * dy[at(a.y_strides, n, k, p, q)];
  });
}

/// Step 3 for ConvTranspose: the filter's spatial dimensions read an output iterator with
/// coefficient 1 and an input iterator with coefficient −stride (h − st·i + pad); reads outside
/// the filter are zero, which is exactly the set of (i, r) pairs with h = st·i + r − pad.
inline std::optional<instance> conv_transpose2d_infer(const binding& b) {
  if (!b.in[0].in_bounds(b.iters) || !b.in[1].linear) return std::nullopt;
  for (auto& sp : spatial_pairs(find_spatial(b.in[1], b.column_of("h"), b.column_of("i"), -1)))
    if (auto r = conv_transpose_for(b, sp)) return r;
  return std::nullopt;
}

/// ConvTranspose canonical expression (NHWC input, RSFC filter), output extent
/// (H_in − 1)·stride − 2·pad + R.
inline ir::scope_ptr conv_transpose2d_canonical(const std::map<std::string, std::int64_t>& size) {
  auto n = size_or(size, "n", 2), i = size_or(size, "i", 3), j = size_or(size, "j", 2),
       f = size_or(size, "f", 3), c = size_or(size, "c", 2), r = size_or(size, "r", 4),
       s = size_or(size, "s", 4), st = size_or(size, "stride", 2), pd = size_or(size, "pad", 1);
  ir::tensor A{"A", ir::dtype::f32, {n, i, j, c}}, K{"K", ir::dtype::f32, {r, s, f, c}};
  std::int64_t h = (i - 1) * st - 2 * pd + r, w = (j - 1) * st - 2 * pd + s;
  using ir::idx;
  return ir::make_scope(
      {{"n", 0, n}, {"h", 0, h}, {"w", 0, w}, {"f", 0, f}}, {{"i", 0, i}, {"j", 0, j}, {"c", 0, c}},
      ir::make_access(A, {idx("n"), idx("i"), idx("j"), idx("c")}) *
          ir::make_access(K, {idx("h") - idx("i") * st + pd, idx("w") - idx("j") * st + pd,
                              idx("f"), idx("c")}));
}

/// Iterator groups: n in {A, O}; h, w, f in {K, O}; i, j, c in {A, K} summed.
inline operator_def conv_transpose2d() {
  return {op_kind::conv_transpose2d,
          body_kind::product,
          {"A", "K"},
          {{0b01, true, {"n"}, false},
           {0b10, true, {"h", "w", "f"}, true},
           {0b11, false, {"i", "j", "c"}, true}},
          conv_transpose2d_canonical,
          conv_transpose2d_infer,
          conv_transpose2d_execute};
}

}  // namespace ein::match::operators
