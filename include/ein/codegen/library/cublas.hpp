// CUDA emitter for GEMM instances: one cublasGemmStridedBatchedEx with inferred ld and strides.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/error.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein::codegen::library {

/// Names the emitted library code refers to.
struct call_names {
  std::string handle = "handle";              // a cublasHandle_t / cudnnHandle_t in scope
  std::string check = "EIN_LIB_CHECK";        // a macro wrapping every library status
  std::string cuda_check = "EIN_CUDA_CHECK";  // a macro wrapping CUDA runtime calls
};

/// cuBLAS's name of element type `t`: `CUDA_R_32F`, `CUDA_R_64F`, `CUDA_R_16F`, `CUDA_R_16BF`.
inline std::string cuda_data_type(ir::dtype t) {
  switch (t) {
    case ir::dtype::f32: return "CUDA_R_32F";
    case ir::dtype::f64: return "CUDA_R_64F";
    case ir::dtype::f16: return "CUDA_R_16F";
    case ir::dtype::bf16: return "CUDA_R_16BF";
  }
  throw internal_error("cuda_data_type: no such element type");
}

/// Writes a block computing a Matmul or BatchMatmul instance with cuBLAS. ein's GEMM attributes
/// are row-major; cuBLAS is column-major, so the call computes Cᵀ = op(B)ᵀ·op(A)ᵀ: B comes
/// first, m and n swap, and each transpose flag stays with its operand.
/// Example: row-major `C[i·ldc + j] = Σ A[i·lda + k]·B[j·ldb + k]` (B transposed) emits
///   `cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_32F,
///    ldb, strideB, a, CUDA_R_32F, lda, strideA, &beta, c, CUDA_R_32F, ldc, strideC, batch,
///    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)`.
/// `inputs`/`output` name device pointers to the start of each operand's flattened source. A
/// float GEMM computes in full float (CUBLAS_COMPUTE_32F) unless `tf32` lets cuBLAS round its
/// operands to TF32 (CUBLAS_COMPUTE_32F_FAST_TF32). A half or bfloat16 GEMM reads and writes its
/// type (CUDA_R_16F, CUDA_R_16BF) and accumulates in float (CUBLAS_COMPUTE_32F, float scalars),
/// on tensor cores where cuBLAS chooses them, rounding once when it stores, as the interpreter
/// does (docs/decisions/0028).
/// @pre op is a GEMM (gemm_attrs: matmul, batch_matmul); cuBLAS's pointer mode is host (the default).
inline void emit_cublas(writer& w, const match::instance& op,
                        const std::vector<std::string>& inputs, const std::string& output,
                        const call_names& names = {}, bool tf32 = false) {
  if (!std::holds_alternative<match::gemm_attrs>(op.attrs))
    throw internal_error(std::string("emit_cublas: not a GEMM: ") + match::name(op.kind));
  if (inputs.size() != 2) throw internal_error("emit_cublas: a GEMM has two inputs");
  auto& g = op.gemm();
  const bool f64 = op.type == ir::dtype::f64;
  const ir::dtype scale = f64 ? ir::dtype::f64 : ir::dtype::f32;  // alpha's and beta's type
  const std::string scalar = f64 ? "double" : "float", data = cuda_data_type(op.type);
  const std::string compute = f64                                 ? "CUBLAS_COMPUTE_64F"
                              : tf32 && op.type == ir::dtype::f32 ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                                                                  : "CUBLAS_COMPUTE_32F";
  auto op_of = [](bool t) { return t ? "CUBLAS_OP_T" : "CUBLAS_OP_N"; };
  w.open("");
  w.line("const " + scalar + " ein_alpha = " + literal(g.alpha, scale) + ", ein_beta = " + literal(0.0, scale) + ";");
  w.line(names.check + "(cublasGemmStridedBatchedEx(");
  w.line("    " + names.handle + ", " + op_of(g.trans_b) + ", " + op_of(g.trans_a) + ", " +
         number(g.n) + ", " + number(g.m) + ", " + number(g.k) + ", &ein_alpha,");
  w.line("    " + advanced(inputs[1], op.inputs[1].offset) + ", " + data + ", " + number(g.ldb) +
         ", " + number(g.stride_b) + ",");
  w.line("    " + advanced(inputs[0], op.inputs[0].offset) + ", " + data + ", " + number(g.lda) +
         ", " + number(g.stride_a) + ",");
  w.line("    &ein_beta, " + output + ", " + data + ", " + number(g.ldc) + ", " +
         number(g.stride_c) + ", " + number(g.batch) + ", " + compute + ", CUBLAS_GEMM_DEFAULT));");
  w.close();
}

/// The C++ initializer of the cuBLASLt product of a Matmul instance ending in an epilogue of
/// form `e` (runtime::lt_product: ein's row-major attributes, the runtime swaps them), the
/// element type named where it is not float:
/// `ein::runtime::lt_product{.trans_a = false, ..., .relu = true, .tf32 = false}`,
/// `..., .tf32 = false, .type = CUDA_R_16BF}` for bfloat16.
/// @pre ein::plan::cublas.takes(op, e).
inline std::string lt_product_text(const match::instance& op, const ein::plan::epilogue_form& e, bool tf32) {
  if (!ein::plan::cublas.takes(op, e)) throw internal_error("lt_product_text: cuBLASLt takes no such epilogue after " + op.str());
  auto& g = op.gemm();
  const std::string type = op.type == ir::dtype::f32 ? "" : ", .type = " + cuda_data_type(op.type);
  return "ein::runtime::lt_product{.trans_a = " + flag(g.trans_a) + ", .trans_b = " + flag(g.trans_b) +
         ", .m = " + number(g.m) + ", .n = " + number(g.n) + ", .k = " + number(g.k) + ", .lda = " + number(g.lda) +
         ", .ldb = " + number(g.ldb) + ", .ldc = " + number(g.ldc) + ", .bias = " + flag(e.bias) +
         ", .residual = " + flag(e.residual) + ", .relu = " + flag(e.relu) + ", .tf32 = " + flag(tf32 && op.type == ir::dtype::f32) +
         type + "}";
}

/// Writes the run-time call of a Matmul step that ends in its epilogue: the step's
/// runtime::cublaslt_product `state` run on the plan's runtime::cublaslt_handle `handle` and
/// stream `s`, alpha in float (cuBLASLt's scale type, 16-bit products too). `inputs`/`output`
/// name device pointers to each operand's buffer; `bias` and `residual` name the epilogue's
/// buffers, or are empty.
/// Example: `state.run(handle, 1.0f, t_x, t_W, t_b, nullptr, t_y, s);`.
inline void emit_cublaslt_run(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                              const std::string& output, const std::string& bias, const std::string& residual,
                              const std::string& state, const std::string& handle) {
  if (inputs.size() != 2) throw internal_error("emit_cublaslt_run: a GEMM has two inputs");
  w.line(state + ".run(" + handle + ", " + literal(op.gemm().alpha, ir::dtype::f32) + ", " +
         advanced(inputs[0], op.inputs[0].offset) + ", " + advanced(inputs[1], op.inputs[1].offset) + ", " +
         (bias.empty() ? "nullptr" : bias) + ", " + (residual.empty() ? "nullptr" : residual) + ", " + output + ", s);");
}

}  // namespace ein::codegen::library
