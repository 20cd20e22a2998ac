// The library calls of a plan's steps as code: host (CBLAS, oneDNN) functions and CUDA (cuBLAS,
// cuDNN) calls, reading the buffers the plan bound to each operand.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/epilogue.hpp"
#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/library/cblas.hpp"
#include "ein/codegen/library/cublas.hpp"
#include "ein/codegen/library/cudnn.hpp"
#include "ein/codegen/library/onednn.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/plan/plan.hpp"

namespace ein::codegen {

/// Whether some step is a library call of `l` (cuBLAS needs a handle, cuDNN another, CBLAS and
/// oneDNN their headers); of any library when `l` is not given.
inline bool any_call(const std::vector<std::optional<ein::plan::library_call>>& calls,
                     const std::optional<ein::plan::library>& l = std::nullopt) {
  for (auto& c : calls)
    if (c && (!l || c->library == *l)) return true;
  return false;
}

/// The name of the function holding step `s`'s cuDNN state in the CUDA source.
inline std::string cudnn_state_function(const named_kernel& s) { return s.function + "_cudnn"; }

namespace detail {

inline std::vector<std::string> input_variables(const ein::plan::library_call& call, const named_plan& plan) {
  std::vector<std::string> inputs;
  for (auto id : call.inputs) inputs.push_back(plan.buffers[id].variable);
  return inputs;
}

}  // namespace detail

/// The library a plan's float products call on the host: oneDNN's sgemm where the plan is bound
/// for a build that calls oneDNN (library::host_gemm says why), else CBLAS.
inline library::host_gemm host_gemm_of(const ein::plan::capabilities& bound_for) {
  const auto& libs = bound_for.libraries;
  return std::find(libs.begin(), libs.end(), ein::plan::onednn) != libs.end() ? library::host_gemm::onednn
                                                                                : library::host_gemm::cblas;
}

/// Whether some step is a float product that `gemm` runs on oneDNN (the code then includes
/// ein/runtime/onednn.hpp).
inline bool any_onednn_gemm(const std::vector<std::optional<ein::plan::library_call>>& calls, library::host_gemm gemm) {
  if (gemm != library::host_gemm::onednn) return false;
  for (auto& c : calls)
    if (c && c->library == ein::plan::blas && c->op.type == ir::dtype::f32) return true;
  return false;
}

/// Whether some step is a bfloat16 product on oneDNN's matmul (the code then includes
/// ein/runtime/onednn_matmul.hpp).
inline bool any_onednn_matmul(const std::vector<std::optional<ein::plan::library_call>>& calls) {
  for (auto& c : calls)
    if (c && c->library == ein::plan::blas && c->op.type == ir::dtype::bf16) return true;
  return false;
}

/// `inline void eop_<name>_host(reads..., target)` computing the step with CBLAS (or oneDNN's
/// sgemm, as `gemm` says), then its epilogue: the same signature as the eOperator's host
/// function, so run() calls either alike.
inline void emit_cblas_function(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                                library::host_gemm gemm = library::host_gemm::cblas) {
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  library::emit_cblas(w, call.op, detail::input_variables(call, plan), plan.buffers[s.target].variable, gemm);
  emit_host_epilogue(w, s, plan);
  w.close();
}

/// The name of the function holding step `s`'s oneDNN primitive in the header.
inline std::string onednn_state_function(const named_kernel& s) { return s.function + "_onednn"; }

/// A bfloat16 product's matmul primitive (a function-local static, built on its first call) and
/// `inline void eop_<name>_host(reads..., target)` running it: the same signature as the
/// eOperator's host function. The call has no epilogue (plan::blas_takes: float only).
inline void emit_onednn_matmul_function(writer& w, const named_kernel& s, const named_plan& plan,
                                        const ein::plan::library_call& call) {
  w.open("inline const ein::runtime::onednn_matmul& " + onednn_state_function(s) + "()");
  w.line("static const ein::runtime::onednn_matmul state(" + library::onednn_matmul_geometry_text(call.op) + ");");
  w.line("return state;");
  w.close();
  const auto inputs = detail::input_variables(call, plan);
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  w.line(onednn_state_function(s) + "().run(" + library::advanced(inputs.at(0), call.op.inputs[0].offset) + ", " +
         library::advanced(inputs.at(1), call.op.inputs[1].offset) + ", " + plan.buffers[s.target].variable + ");");
  w.close();
}

namespace detail {

// `, <bias>, <residual>`: the epilogue's buffers of a oneDNN call (`nullptr` for a term it lacks),
// after its source and destination; nothing for a call without an epilogue.
inline std::string onednn_epilogue_arguments(const ein::plan::library_call& call, const named_plan& plan) {
  if (!call.epilogue) return "";
  auto& e = *call.epilogue;
  return ", " + (e.bias ? plan.buffers[*e.bias].variable : std::string("nullptr")) + ", " +
         (e.residual ? plan.buffers[*e.residual].variable : std::string("nullptr"));
}

}  // namespace detail

/// The step's oneDNN primitive (library::emit_onednn_state, with the call's epilogue) and `inline
/// void eop_<name>_host(reads..., target)` running it, the filter reordered on every call: the
/// same signature as the eOperator's host function, so run() calls either alike.
inline void emit_onednn_function(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call) {
  library::emit_onednn_state(w, call.op, onednn_state_function(s), call.epilogue);
  const auto [src, weights] = library::onednn_operands(call.op, detail::input_variables(call, plan));
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  w.line(onednn_state_function(s) + "().run(" + src + ", " + weights + ", " + plan.buffers[s.target].variable +
         detail::onednn_epilogue_arguments(call, plan) + ");");
  w.close();
}

/// In prepare(): the state of a oneDNN step whose filter prepare() has, made from the step's
/// primitive (`ns`::onednn_state_function(s)) with the filter reordered once, into the slot
/// `offset` bytes into `storage`.
inline void emit_onednn_preparation(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                                    const std::string& ns, std::int64_t offset) {
  const std::string weights = library::onednn_operands(call.op, detail::input_variables(call, plan))[1];
  w.line("ein::runtime::onednn_slot(storage, " + std::to_string(offset) +
         ") = new ein::runtime::onednn_prepared_convolution(" + ns + "::" + onednn_state_function(s) + "(), " +
         weights + ");");
}

/// In run_prepared(): the call of a oneDNN step on the state prepare() made in the slot
/// `offset` bytes into `storage`.
inline void emit_onednn_prepared_call(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                                      std::int64_t offset) {
  const std::string src = library::onednn_operands(call.op, detail::input_variables(call, plan))[0];
  w.line("ein::runtime::onednn_state(storage, " + std::to_string(offset) + ").run(" + src + ", " +
         plan.buffers[s.target].variable + detail::onednn_epilogue_arguments(call, plan) + ");");
}

/// The cuBLAS call of a step on the plan's handle `handle` (its stream already set), rounding
/// float operands to TF32 where `tf32` says so.
inline void emit_cublas_call(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                             const std::string& handle, bool tf32) {
  library::emit_cublas(w, call.op, detail::input_variables(call, plan), plan.buffers[s.target].variable,
                       {handle, "EIN_CUBLAS_CHECK", "EIN_CUDA_CHECK"}, tf32);
}

/// The cuDNN call of a convolution step on the plan's handle `handle` (its stream already set),
/// with the step's state from `ns`::cudnn_state_function(s); the fused call where the step ends
/// in an epilogue.
inline void emit_cudnn_call(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                            const std::string& ns, const std::string& handle) {
  std::optional<library::fused_operands> fused;
  if (auto& e = call.epilogue)
    fused = library::fused_operands{plan.buffers.at(e->bias.value()).variable,
                                    e->residual ? plan.buffers[*e->residual].variable : ""};
  library::emit_cudnn_run(w, call.op, detail::input_variables(call, plan), plan.buffers[s.target].variable,
                          ns + "::" + cudnn_state_function(s) + "(s)", handle, fused);
}

/// The form of a step's epilogue, if it has one.
inline std::optional<ein::plan::epilogue_form> epilogue_form_of(const named_kernel& s, const named_plan& plan) {
  if (!s.call || !s.call->epilogue) return std::nullopt;
  return ein::plan::epilogue_form::of(*s.call->epilogue, plan.buffers[s.target].shape);
}

/// Whether some step is a BLAS call that ends in an epilogue (`with` true: cuBLASLt runs those on
/// cuda) or one that does not (`with` false: cuBLAS).
inline bool any_product(const std::vector<std::optional<ein::plan::library_call>>& calls, bool with_epilogue) {
  for (auto& c : calls)
    if (c && c->library == ein::plan::blas && c->epilogue.has_value() == with_epilogue) return true;
  return false;
}

/// The name of the function holding step `s`'s cuBLASLt product in the CUDA source.
inline std::string cublaslt_state_function(const named_kernel& s) { return s.function + "_cublaslt"; }

/// `static ein::runtime::cublaslt_product& <function>(cudaStream_t s)`: the cuBLASLt
/// descriptors of a product step that ends in its epilogue, for stream `s` on the calling thread
/// (runtime::per_stream: run() sets the bias pointer on them), made on its first call there.
inline void emit_cublaslt_state(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                                bool tf32) {
  const std::string product = library::lt_product_text(call.op, *epilogue_form_of(s, plan), tf32);
  w.open("static ein::runtime::cublaslt_product& " + cublaslt_state_function(s) + "(cudaStream_t s)");
  w.line(library::state_table("cublaslt_product", "states"));
  w.open("return states.get(ein::runtime::current_device(), s, []");
  w.line("return std::make_unique<ein::runtime::cublaslt_product>(");
  w.line("    " + product + ");");
  w.close(");");
  w.close();
}

/// The cuBLASLt call of a product step that ends in its epilogue, on the plan's cuBLASLt handle
/// `handle` and stream `s`, with the step's state from `ns`::cublaslt_state_function(s).
inline void emit_cublaslt_call(writer& w, const named_kernel& s, const named_plan& plan, const ein::plan::library_call& call,
                               const std::string& ns, const std::string& handle) {
  auto& e = call.epilogue.value();
  library::emit_cublaslt_run(w, call.op, detail::input_variables(call, plan), plan.buffers[s.target].variable,
                             e.bias ? plan.buffers[*e.bias].variable : "",
                             e.residual ? plan.buffers[*e.residual].variable : "",
                             ns + "::" + cublaslt_state_function(s) + "(s)", handle);
}

}  // namespace ein::codegen
