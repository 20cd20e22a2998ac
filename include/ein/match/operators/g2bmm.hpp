// G2BMM: O[b, m, w] = Σ_k A[b, m, k] · B[b, m + D·(w − W), k], and the band inference shared
// with GBMM.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/match/operators/conv2d.hpp"

namespace ein::match::operators {

/// Band attributes from a binding whose columns hold b and m together, the band iterator w and
/// the feature iterators (k of G2BMM, n of GBMM). B's band dimension reads m + D·w + c0 with
/// c0 = −D·W for 2W + 1 values of w and has exactly the extent of m, so that its zero reads are
/// the band's ends.
inline std::optional<instance> infer_band(const binding& bd, op_kind kind) {
  bool g2 = kind == op_kind::g2bmm;
  const view &A = bd.in[0], &B = bd.in[1], &O = bd.out;
  auto& it = bd.iters;
  if (!A.in_bounds(it) || !B.linear) return std::nullopt;
  for (auto& band : find_spatial(B, bd.column_of("m"), bd.column_of("w"), 1)) {
    if (band.out_it.empty() || band.kernel_it.empty()) continue;
    std::int64_t M = it.at(band.out_it).extent, span = it.at(band.kernel_it).extent;
    std::int64_t W = (span - 1) / 2, D = band.b;
    if (band.a != 1 || span % 2 == 0 || band.c0 != -D * W || B.shape[band.dim] != M) continue;
    std::vector<bool> rest(B.index.size(), true);
    rest[band.dim] = false;
    bool ok = true;
    for (std::size_t d = 0; d < rest.size(); ++d) ok = ok && (!rest[d] || B.dim_in_bounds(d, it));
    auto batch = bd.column_of("m");
    batch.erase(std::remove(batch.begin(), batch.end(), band.out_it), batch.end());
    auto gb = merge(batch, {&A, &B, &O}, it, {{}, rest, {}});
    auto gf = g2 ? merge(bd.column_of("k"), {&A, &B}, it, {{}, rest})
                 : merge(bd.column_of("n"), {&B, &O}, it, {rest, {}});
    if (!ok || !gb || !gf) continue;
    band_attrs a;
    a.batch = gb->extent, a.m = M, a.features = gf->extent, a.width = W, a.dilation = D;
    a.alpha = bd.alpha;
    std::int64_t am = A.coefficient(band.out_it), om = O.coefficient(band.out_it);
    std::int64_t aw = g2 ? gf->stride[0] : A.coefficient(band.kernel_it);
    std::int64_t ow = g2 ? O.coefficient(band.kernel_it) : gf->stride[1];
    a.a_strides = {gb->stride[0], am, aw};
    a.b_strides = {gb->stride[1], B.strides[band.dim], g2 ? gf->stride[1] : gf->stride[0]};
    a.o_strides = {gb->stride[2], om, ow};
    if (am <= 0 || om <= 0 || aw <= 0 || ow <= 0) continue;
    instance r;
    r.kind = kind;
    bind_operands(r, bd, {A.base(), B.base(rest)});
    double e = static_cast<double>(ir::element_bytes(r.type)), bm = static_cast<double>(a.batch * M),
           w = static_cast<double>(2 * W + 1), f = static_cast<double>(a.features);
    r.flops = 2 * bm * w * f;
    r.bytes = e * bm * (2 * f + w);  // two (m × f) operands and one (m × band), either way
    r.grid = {a.batch, a.m, g2 ? 2 * a.width + 1 : a.features};
    r.attrs = a;
    return r;
  }
  return std::nullopt;
}

/// The band product as its kernel reads memory: g2bmm (`g2`) sums features into the band, gbmm
/// the band into features; band rows outside [0, m) are zero.
inline void band_execute(const band_attrs& a, bool g2, const double* A, const double* B, double* O) {
  std::int64_t span = 2 * a.width + 1;
  auto& as = a.a_strides;
  auto& bs = a.b_strides;
  auto& os = a.o_strides;
  for (std::int64_t b = 0; b < a.batch; ++b)
    for (std::int64_t m = 0; m < a.m; ++m)
      for (std::int64_t j = 0; j < (g2 ? span : a.features); ++j) {
        double acc = 0;
        for (std::int64_t t = 0; t < (g2 ? a.features : span); ++t) {
          std::int64_t w = g2 ? j : t, f = g2 ? t : j;
          std::int64_t row = m + a.dilation * (w - a.width);
          if (row < 0 || row >= a.m) continue;
          acc += A[b * as[0] + m * as[1] + t * as[2]] * B[b * bs[0] + row * bs[1] + f * bs[2]];
        }
        O[b * os[0] + m * os[1] + j * os[2]] = a.alpha * acc;
      }
}

inline void g2bmm_execute(const instance& op, const double* a, const double* b, double* out) {
  band_execute(op.band(), true, a, b, out);
}

/// G2BMM canonical expression: L_{b,m,w} Σ_k A[b, m, k] · B[b, m + D·(w − W), k].
inline ir::scope_ptr g2bmm_canonical(const std::map<std::string, std::int64_t>& size) {
  auto bt = size_or(size, "b", 2), m = size_or(size, "m", 9), k = size_or(size, "k", 3),
       W = size_or(size, "W", 2), D = size_or(size, "D", 2);
  ir::tensor A{"A", ir::dtype::f32, {bt, m, k}}, B{"B", ir::dtype::f32, {bt, m, k}};
  using ir::idx;
  return ir::make_scope(
      {{"b", 0, bt}, {"m", 0, m}, {"w", 0, 2 * W + 1}}, {{"k", 0, k}},
      ir::make_access(A, {idx("b"), idx("m"), idx("k")}) *
          ir::make_access(B, {idx("b"), idx("m") + (idx("w") - W) * D, idx("k")}));
}

inline std::optional<instance> g2bmm_infer(const binding& b) {
  return infer_band(b, op_kind::g2bmm);
}

/// Table 2 row: b, m in {A, B, O}; w in {B, O}; k in {A, B} summed.
inline operator_def g2bmm() {
  return {op_kind::g2bmm,
          body_kind::product,
          {"A", "B"},
          {{0b11, true, {"b", "m"}, true}, {0b10, true, {"w"}, true}, {0b11, false, {"k"}, false}},
          g2bmm_canonical,
          g2bmm_infer,
          g2bmm_execute};
}

}  // namespace ein::match::operators
