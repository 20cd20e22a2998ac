// Steps of a plan that run as library calls: which ones (compute-bound GEMMs and, on CUDA,
// convolutions over whole named buffers) and their host (CBLAS) and CUDA (cuBLAS, cuDNN) code.
#pragma once

#include <climits>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/codegen/library/cblas.hpp"
#include "ein/codegen/library/cublas.hpp"
#include "ein/codegen/library/cudnn.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/match/match.hpp"

namespace ein::codegen {

/// A step computed by one library operator: the matched instance and the buffer each of its
/// inputs reads, in the instance's operand order.
struct library_call {
  match::instance op;
  std::vector<std::size_t> inputs;
  bool tf32 = false;  // a float call may round its operands to TF32 (options::tf32)

  /// `library matmul(A=x+0, B=W+0) batch=1 m=64 ...`: the plan's words for the step.
  std::string str() const { return "library " + op.str(); }
  /// A cuDNN convolution (conv2d or conv_transpose2d) rather than a GEMM.
  bool convolution() const {
    return op.kind == match::op_kind::conv2d || op.kind == match::op_kind::conv_transpose2d;
  }
};

namespace detail {

// Leading dimensions and sizes that both CBLAS (row-major) and cuBLAS accept for `g`; a
// degenerate GEMM (an extent-1 dimension) may have been matched with a smaller one.
inline bool blas_accepts(const match::gemm_attrs& g) {
  auto fits = [](std::int64_t v) { return v >= 1 && v <= INT_MAX; };
  for (auto v : {g.batch, g.m, g.n, g.k, g.lda, g.ldb, g.ldc})
    if (!fits(v)) return false;
  return g.lda >= (g.trans_a ? g.m : g.k) && g.ldb >= (g.trans_b ? g.k : g.n) && g.ldc >= g.n;
}

// The buffer an operand reads when the operator's view of it is the whole buffer as the IR
// sees it: a named tensor whose buffer starts at 0 with the tensor's shape and element type.
inline std::optional<std::size_t> whole_buffer(const match::operand& o, const layout& plan,
                                               ir::dtype type) {
  auto* t = std::get_if<ir::tensor>(&o.source);
  if (!t) return std::nullopt;  // a nested scope: its temporary may have another box
  auto it = plan.by_name.find(t->name);
  if (it == plan.by_name.end()) return std::nullopt;
  const buffer& b = plan.buffers[it->second];
  for (auto l : b.lower)
    if (l != 0) return std::nullopt;
  if (b.shape != t->shape || b.type != type || t->type != type) return std::nullopt;
  return it->second;
}

// A convolution cuDNN runs as matched (cudnn_supports) whose sizes and strides fit its ints.
inline bool cudnn_accepts(const match::instance& op) {
  if (!library::cudnn_supports(op)) return false;
  auto& a = op.conv();
  auto fits = [](std::int64_t v) { return v >= 0 && v <= INT_MAX; };
  for (auto v : {a.n, a.c, a.h, a.w, a.k, a.r, a.s, a.p, a.q, a.pad_h, a.pad_w, a.stride_h,
                 a.stride_w, a.dilation_h, a.dilation_w})
    if (!fits(v)) return false;
  for (auto& strides : {a.x_strides, a.y_strides})
    for (auto v : strides)
      if (!fits(v)) return false;
  return true;
}

// The convolution call of a step: a compute-bound conv2d / conv_transpose2d that cuDNN accepts,
// every operand (output included) a whole buffer read from its start.
inline std::optional<library_call> find_convolution_call(const step& s, const layout& plan) {
  const buffer& out = plan.buffers[s.target];
  for (auto& op : match::match(*s.value)) {
    if (op.kind != match::op_kind::conv2d && op.kind != match::op_kind::conv_transpose2d) continue;
    if (match::memory_bound(op, 4.0) || op.type != out.type || op.output.offset != 0) continue;
    if (!cudnn_accepts(op)) continue;
    auto& a = op.conv();
    bool forward = op.kind == match::op_kind::conv2d;
    if ((forward ? a.n * a.k * a.p * a.q : a.n * a.c * a.h * a.w) != out.count()) continue;
    library_call call{op, {}};
    for (auto& in : op.inputs)
      if (in.offset == 0)
        if (auto id = whole_buffer(in, plan, op.type)) call.inputs.push_back(*id);
    if (call.inputs.size() == op.inputs.size()) return call;
  }
  return std::nullopt;
}

}  // namespace detail

/// The library call that computes step `s` of `plan`, if it is one: a matmul or batch_matmul
/// instance (EinNet §5) that is not memory-bound (match::memory_bound), reads inputs, weights or
/// earlier definitions as whole buffers, writes the step's whole buffer, all in one element
/// type, with sizes BLAS accepts. With `convolutions` (the cuda backend with cuDNN), also a
/// compute-bound conv2d or conv_transpose2d that cuDNN runs as matched (library::cudnn_supports:
/// symmetric padding, a packed KCRS or KRSC filter) on whole buffers read from offset 0, where
/// the step is no GEMM.
/// Everything else (band products, nested-scope operands, an offset output) stays an eOperator.
inline std::optional<library_call> find_library_call(const step& s, const layout& plan,
                                                     bool convolutions = false) {
  const buffer& out = plan.buffers[s.target];
  for (auto& op : match::match(*s.value)) {
    if (op.kind != match::op_kind::matmul && op.kind != match::op_kind::batch_matmul) continue;
    if (match::memory_bound(op, 4.0) || op.type != out.type || op.output.offset != 0) continue;
    auto& g = op.gemm();
    if (!detail::blas_accepts(g) || g.batch * g.m * g.n != out.count()) continue;
    library_call call{op, {}};
    for (auto& in : op.inputs)
      if (auto id = detail::whole_buffer(in, plan, op.type)) call.inputs.push_back(*id);
    if (call.inputs.size() == op.inputs.size()) return call;
  }
  // A GEMM may also match as a degenerate convolution: the GEMM is preferred.
  if (convolutions) return detail::find_convolution_call(s, plan);
  return std::nullopt;
}

/// The library calls of a plan, one entry per step (nothing where the step is an eOperator);
/// all empty when `enabled` is false; convolutions only with `convolutions` (find_library_call).
inline std::vector<std::optional<library_call>> find_library_calls(const layout& plan,
                                                                   bool enabled,
                                                                   bool convolutions = false) {
  std::vector<std::optional<library_call>> r(plan.steps.size());
  if (enabled)
    for (std::size_t k = 0; k < plan.steps.size(); ++k)
      r[k] = find_library_call(plan.steps[k], plan, convolutions);
  return r;
}

inline bool any_library_call(const std::vector<std::optional<library_call>>& calls) {
  for (auto& c : calls)
    if (c) return true;
  return false;
}

/// Whether some step is a GEMM library call (a cuBLAS handle is needed).
inline bool any_gemm_call(const std::vector<std::optional<library_call>>& calls) {
  for (auto& c : calls)
    if (c && !c->convolution()) return true;
  return false;
}

/// Whether some step is a convolution library call (a cuDNN handle is needed).
inline bool any_convolution_call(const std::vector<std::optional<library_call>>& calls) {
  for (auto& c : calls)
    if (c && c->convolution()) return true;
  return false;
}

/// The name of the function holding step `s`'s cuDNN state in the CUDA source.
inline std::string cudnn_state_function(const step& s) { return s.function + "_cudnn"; }

/// `inline void eop_<name>_host(reads..., target)` computing the step with CBLAS: the same
/// signature as the eOperator's host function, so run() calls either alike.
inline void emit_cblas_function(writer& w, const step& s, const layout& plan,
                                const library_call& call) {
  std::vector<std::string> inputs;
  for (auto id : call.inputs) inputs.push_back(plan.buffers[id].variable);
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  library::emit_cblas(w, call.op, inputs, plan.buffers[s.target].variable);
  w.close();
}

/// The cuBLAS call of a step on the plan's handle `handle` (its stream already set).
inline void emit_cublas_call(writer& w, const step& s, const layout& plan,
                             const library_call& call, const std::string& handle) {
  std::vector<std::string> inputs;
  for (auto id : call.inputs) inputs.push_back(plan.buffers[id].variable);
  library::emit_cublas(w, call.op, inputs, plan.buffers[s.target].variable,
                       {handle, "EIN_CUBLAS_CHECK", "EIN_CUDA_CHECK"}, call.tf32);
}

/// The cuDNN call of a convolution step on the plan's handle `handle` (its stream already set),
/// with the step's state from `ns`::cudnn_state_function(s).
inline void emit_cudnn_call(writer& w, const step& s, const layout& plan, const library_call& call,
                            const std::string& ns, const std::string& handle) {
  std::vector<std::string> inputs;
  for (auto id : call.inputs) inputs.push_back(plan.buffers[id].variable);
  library::emit_cudnn_run(w, call.op, inputs, plan.buffers[s.target].variable,
                          ns + "::" + cudnn_state_function(s) + "()", handle);
}

}  // namespace ein::codegen
