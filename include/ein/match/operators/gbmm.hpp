// GBMM: O[b, m, n] = Σ_w A[b, m, w] · B[b, m + D·(w − W), n], the band-times-matrix product.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/match/operators/g2bmm.hpp"

namespace ein::match::operators {

/// GBMM canonical expression: L_{b,m,n} Σ_w A[b, m, w] · B[b, m + D·(w − W), n].
inline ir::scope_ptr gbmm_canonical(const std::map<std::string, std::int64_t>& size) {
  auto bt = size_or(size, "b", 2), m = size_or(size, "m", 9), n = size_or(size, "n", 3),
       W = size_or(size, "W", 2), D = size_or(size, "D", 2);
  ir::tensor A{"A", ir::dtype::f32, {bt, m, 2 * W + 1}}, B{"B", ir::dtype::f32, {bt, m, n}};
  using ir::idx;
  return ir::make_scope(
      {{"b", 0, bt}, {"m", 0, m}, {"n", 0, n}}, {{"w", 0, 2 * W + 1}},
      ir::make_access(A, {idx("b"), idx("m"), idx("w")}) *
          ir::make_access(B, {idx("b"), idx("m") + (idx("w") - W) * D, idx("n")}));
}

inline std::optional<instance> gbmm_infer(const binding& b) { return infer_band(b, op_kind::gbmm); }

inline void gbmm_execute(const instance& op, const double* a, const double* b, double* out) {
  band_execute(op.band(), false, a, b, out);
}

/// Table 2 row: b, m in {A, B, O}; n in {B, O}; w in {A, B} summed.
inline operator_def gbmm() {
  return {op_kind::gbmm,
          body_kind::product,
          {"A", "B"},
          {{0b11, true, {"b", "m"}, true}, {0b10, true, {"n"}, false}, {0b11, false, {"w"}, true}},
          gbmm_canonical,
          gbmm_infer,
          gbmm_execute};
}

}  // namespace ein::match::operators
