// Host emitter for GEMM instances: CBLAS calls (or oneDNN's sgemm, where a plan links oneDNN) with
// the inferred transposes, ld and strides.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/error.hpp"
#include "ein/match/instance.hpp"

namespace ein::codegen::library {

/// The library a host plan's float products call: CBLAS (`cblas_sgemm`), or, in a plan that links
/// oneDNN, oneDNN's `dnnl_sgemm`, which shares one OpenMP team with the plan's oneDNN convolutions
/// and eOperators: OpenBLAS (Debian's pthreads build) keeps threads of its own, which spin after
/// each call on the cores the next OpenMP team needs (docs/host.md, "Threads and OpenBLAS").
/// Double products call `cblas_dgemm` either way (oneDNN has no dgemm).
enum class host_gemm { cblas, onednn };

/// Writes host code computing a Matmul or BatchMatmul instance with CBLAS (row-major), one
/// cblas_sgemm/cblas_dgemm per batch, or with `gemm` onednn for float, one checked dnnl_sgemm
/// (`ein::runtime::onednn_sgemm`, row-major too). `inputs` and `output` name pointers to the
/// *start* of each operand's flattened source (the instance's offsets are added here).
/// Example (batch 2, A transposed): `for (long long ein_q = 0; ein_q < 2; ++ein_q) {
///   cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 3, 4, 5, static_cast<float>(1.0),
///               a + 7 + ein_q * 15, 3, b + ein_q * 20, 4, static_cast<float>(0.0), out + ein_q *
///               12, 4); }`; with onednn, `ein::runtime::onednn_sgemm('T', 'N', 3, 4, 5, ...)`.
/// @pre op is a GEMM (gemm_attrs: matmul, batch_matmul); the generated code includes <cblas.h>
///      (and, with onednn, ein/runtime/onednn.hpp).
inline void emit_cblas(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                       const std::string& output, host_gemm gemm = host_gemm::cblas) {
  if (!std::holds_alternative<match::gemm_attrs>(op.attrs))
    throw internal_error(std::string("emit_cblas: not a GEMM: ") + match::name(op.kind));
  if (inputs.size() != 2) throw internal_error("emit_cblas: a GEMM has two inputs");
  auto& g = op.gemm();
  bool batched = g.batch > 1;
  auto at = [&](const std::string& base, std::int64_t offset, std::int64_t stride) {
    std::string s = advanced(base, offset);
    return batched && stride != 0 ? s + " + ein_q * " + number(stride) : s;
  };
  const bool onednn = gemm == host_gemm::onednn && op.type == ir::dtype::f32;
  std::string fn = onednn ? "ein::runtime::onednn_sgemm" : op.type == ir::dtype::f32 ? "cblas_sgemm" : "cblas_dgemm";
  std::string layout = onednn ? "" : "CblasRowMajor, ";
  auto transposed = [&](bool t) {
    return onednn ? std::string(t ? "'T'" : "'N'") : std::string(t ? "CblasTrans" : "CblasNoTrans");
  };
  std::string call = fn + "(" + layout + transposed(g.trans_a) + ", " + transposed(g.trans_b) + ", " +
                     number(g.m) + ", " + number(g.n) + ", " + number(g.k) + ", " + literal(g.alpha, op.type) + ", " +
                     at(inputs[0], op.inputs[0].offset, g.stride_a) + ", " + number(g.lda) + ", " +
                     at(inputs[1], op.inputs[1].offset, g.stride_b) + ", " + number(g.ldb) + ", " +
                     literal(0.0, op.type) + ", " + at(output, 0, g.stride_c) + ", " + number(g.ldc) + ");";
  if (batched) w.open("for (long long ein_q = 0; ein_q < " + number(g.batch) + "; ++ein_q)");
  w.line(call);
  if (batched) w.close();
}

}  // namespace ein::codegen::library
