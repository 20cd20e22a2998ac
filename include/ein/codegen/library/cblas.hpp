// Host emitter for GEMM instances: CBLAS calls with the inferred transposes, ld and strides.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/detail/error.hpp"
#include "ein/match/instance.hpp"

namespace ein::codegen::library {

/// Writes host code computing a Matmul or BatchMatmul instance with CBLAS (row-major), one
/// cblas_sgemm/cblas_dgemm per batch. `inputs` and `output` name pointers to the *start* of each
/// operand's flattened source (the instance's offsets are added here).
/// Example (batch 2, A transposed): `for (long long ein_q = 0; ein_q < 2; ++ein_q) {
///   cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 3, 4, 5, static_cast<float>(1.0),
///               a + 7 + ein_q * 15, 3, b + ein_q * 20, 4, static_cast<float>(0.0), out + ein_q *
///               12, 4); }`
/// @pre op is a GEMM (gemm_attrs: matmul, batch_matmul); the generated code includes <cblas.h>.
inline void emit_cblas(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                       const std::string& output) {
  if (!std::holds_alternative<match::gemm_attrs>(op.attrs))
    throw internal_error(std::string("emit_cblas: not a GEMM: ") + match::name(op.kind));
  if (inputs.size() != 2) throw internal_error("emit_cblas: a GEMM has two inputs");
  auto& g = op.gemm();
  bool batched = g.batch > 1;
  auto at = [&](const std::string& base, std::int64_t offset, std::int64_t stride) {
    std::string s = advanced(base, offset);
    return batched && stride != 0 ? s + " + ein_q * " + number(stride) : s;
  };
  std::string fn = op.type == ir::dtype::f32 ? "cblas_sgemm" : "cblas_dgemm";
  std::string call = fn + "(CblasRowMajor, " + (g.trans_a ? "CblasTrans" : "CblasNoTrans") + ", " +
                     (g.trans_b ? "CblasTrans" : "CblasNoTrans") + ", " + number(g.m) + ", " +
                     number(g.n) + ", " + number(g.k) + ", " + literal(g.alpha, op.type) + ", " +
                     at(inputs[0], op.inputs[0].offset, g.stride_a) + ", " + number(g.lda) + ", " +
                     at(inputs[1], op.inputs[1].offset, g.stride_b) + ", " + number(g.ldb) + ", " +
                     literal(0.0, op.type) + ", " + at(output, 0, g.stride_c) + ", " +
                     number(g.ldc) + ");";
  if (batched) w.open("for (long long ein_q = 0; ein_q < " + number(g.batch) + "; ++ein_q)");
  w.line(call);
  if (batched) w.close();
}

}  // namespace ein::codegen::library
