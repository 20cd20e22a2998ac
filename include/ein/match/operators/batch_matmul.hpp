// BatchMatmul: O[b, m, n] = Σ_k A[b, m, k] · B[b, k, n], a strided batched GEMM.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/match/operators/matmul.hpp"

namespace ein::match::operators {

/// BatchMatmul canonical expression: L_{b,m,n} Σ_k A[b, m, k] · B[b, k, n].
inline ir::scope_ptr batch_matmul_canonical(const std::map<std::string, std::int64_t>& size) {
  auto bt = size_or(size, "b", 2), m = size_or(size, "m", 3), n = size_or(size, "n", 4),
       k = size_or(size, "k", 5);
  ir::tensor A{"A", ir::dtype::f32, {bt, m, k}}, B{"B", ir::dtype::f32, {bt, k, n}};
  return ir::make_scope({{"b", 0, bt}, {"m", 0, m}, {"n", 0, n}}, {{"k", 0, k}},
                        ir::make_access(A, {ir::idx("b"), ir::idx("m"), ir::idx("k")}) *
                            ir::make_access(B, {ir::idx("b"), ir::idx("k"), ir::idx("n")}));
}

inline std::optional<instance> batch_matmul_infer(const binding& b) {
  return infer_gemm(b, op_kind::batch_matmul);
}

/// Table 2 row: b in {A, B, O} (at least one), m in {A, O}, n in {B, O}, k in {A, B} summed.
inline operator_def batch_matmul() {
  return {op_kind::batch_matmul,
          body_kind::product,
          {"A", "B"},
          {{0b11, true, {"b"}, true},
           {0b01, true, {"m"}, false},
           {0b10, true, {"n"}, false},
           {0b11, false, {"k"}, true}},
          batch_matmul_canonical,
          batch_matmul_infer,
          gemm_execute};
}

}  // namespace ein::match::operators
