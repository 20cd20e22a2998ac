// Host emitter for convolution instances oneDNN runs (plan::onednn_accepts) and bfloat16 GEMMs
// (plan::blas_onednn_bf16): their geometry in oneDNN's terms, the primitive a plan builds once per
// step, and the per-run call.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/error.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/plan/epilogue.hpp"
#include "ein/runtime/onednn_geometry.hpp"
#include "ein/runtime/onednn_matmul_geometry.hpp"

namespace ein::codegen::library {

namespace detail {

inline std::string dims_text(const std::int64_t (&dims)[4], const std::int64_t (&strides)[4], const std::string& name) {
  std::string d, s;
  for (int k = 0; k < 4; ++k) {
    d += (k ? ", " : "") + number(dims[k]);
    s += (k ? ", " : "") + number(strides[k]);
  }
  return "." + name + "_dims = {" + d + "}, ." + name + "_strides = {" + s + "}";
}

inline std::string pair_text(const std::int64_t (&v)[2]) { return "{" + number(v[0]) + ", " + number(v[1]) + "}"; }

// A strided convolution leaves the last rows or columns of its input unread, and the matcher
// trims them off its view of x, whose row stride then fits no dense layout: oneDNN ran ResNet-50's
// strided 1×1 (55 of 56 columns) with its reference loops, 467 ms against 0.94 ms for its own call
// (`bench_host`). Each spatial dimension of `dims` is widened as far as the next dimension of its
// layout starts, and `pad_end` lessened as much (oneDNN takes a negative padding after: columns it
// does not read), which gives the same output and the layout NHWC's or NCHW's again. oneDNN 2.6
// refuses a padding after of −stride or less (for any groups, dilation and layout): a dimension
// that would need it (a dilated 3×3 into one output column reads 5 of 9 columns: −4 at stride 1)
// keeps its trimmed extent.
inline void widen_to_layout(std::array<std::int64_t, 4>& dims, const std::array<std::int64_t, 4>& strides,
                            std::array<std::int64_t, 2>& pad_end, const std::array<std::int64_t, 2>& stride) {
  for (int d = 2; d < 4; ++d) {
    std::int64_t next = 0;
    for (int e = 0; e < 4; ++e)
      if (dims[e] > 1 && strides[e] > strides[d] && (next == 0 || strides[e] < next)) next = strides[e];
    if (next == 0 || strides[d] <= 0 || next % strides[d] != 0 || next / strides[d] <= dims[d]) continue;
    const std::int64_t widened = pad_end[d - 2] - (next / strides[d] - dims[d]);
    if (widened <= -stride[d - 2]) continue;
    pad_end[d - 2] = widened;
    dims[d] = next / strides[d];
  }
}

// Copies `dims` and `strides` into a geometry's arrays; oneDNN asks for a positive stride even
// where a dimension has one element.
inline void set_tensor(std::int64_t (&dims)[4], std::int64_t (&strides)[4], const std::array<std::int64_t, 4>& d,
                       const std::array<std::int64_t, 4>& s) {
  for (int k = 0; k < 4; ++k) dims[k] = d[k], strides[k] = d[k] == 1 && s[k] <= 0 ? 1 : s[k];
}

}  // namespace detail

/// The ein::runtime::onednn_geometry of a convolution: a conv2d reads src = x (n, c, h, w) with
/// weights w (k, c/groups, r, s) into dst = y (n, k, p, q); a conv_transpose2d reads src = y with
/// weights w read as (c, k, r, s) (oneDNN's deconvolution weights are those of the convolution
/// it transposes, channels swapped) into dst = x. A conv2d's rows and columns of x reach as far
/// as its layout does where oneDNN takes the padding after that leaves (detail::widen_to_layout).
/// @pre ein::plan::onednn_accepts(op).
inline ein::runtime::onednn_geometry onednn_geometry_of(const match::instance& op) {
  if (!ein::plan::onednn_accepts(op)) throw internal_error("onednn_geometry_of: oneDNN cannot run " + op.str());
  auto& a = op.conv();
  const bool forward = !a.backward_data;
  using dims = std::array<std::int64_t, 4>;
  dims x{a.n, a.c, a.h, a.w};
  const dims y{a.n, a.k, a.p, a.q};
  std::array<std::int64_t, 2> pad_end{a.pad_h_end, a.pad_w_end};
  if (forward) detail::widen_to_layout(x, a.x_strides, pad_end, {a.stride_h, a.stride_w});
  const dims w = forward ? dims{a.k, a.filter_channels(), a.r, a.s} : dims{a.c, a.k, a.r, a.s};
  const dims ws = forward ? a.w_strides : dims{a.w_strides[1], a.w_strides[0], a.w_strides[2], a.w_strides[3]};
  ein::runtime::onednn_geometry g;
  g.forward = forward;
  detail::set_tensor(g.src_dims, g.src_strides, forward ? x : y, forward ? a.x_strides : a.y_strides);
  detail::set_tensor(g.weights_dims, g.weights_strides, w, ws);
  detail::set_tensor(g.dst_dims, g.dst_strides, forward ? y : x, forward ? a.y_strides : a.x_strides);
  g.pad[0] = a.pad_h, g.pad[1] = a.pad_w, g.pad_end[0] = pad_end[0], g.pad_end[1] = pad_end[1];
  g.stride[0] = a.stride_h, g.stride[1] = a.stride_w, g.dilation[0] = a.dilation_h, g.dilation[1] = a.dilation_w;
  g.alpha = static_cast<float>(a.alpha);
  g.groups = a.groups;
  g.type = runtime_type(op.type);
  return g;
}

/// The C++ initializer of onednn_geometry_of(op).
/// Example (3×3 NHWC conv2d, KRSC filter): `ein::runtime::onednn_geometry{.forward = true,
/// .src_dims = {1, 512, 7, 7}, .src_strides = {25088, 1, 3584, 512}, .weights_dims = {512, 512, 3,
/// 3}, .weights_strides = {4608, 1, 1536, 512}, ..., .pad = {1, 1}, .pad_end = {1, 1}, ...}`.
/// @pre ein::plan::onednn_accepts(op).
inline std::string onednn_geometry_text(const match::instance& op) {
  const auto g = onednn_geometry_of(op);
  return std::string("ein::runtime::onednn_geometry{.forward = ") + flag(g.forward) + ", " +
         detail::dims_text(g.src_dims, g.src_strides, "src") + ", " +
         detail::dims_text(g.weights_dims, g.weights_strides, "weights") + ", " +
         detail::dims_text(g.dst_dims, g.dst_strides, "dst") + ", .pad = " + detail::pair_text(g.pad) +
         ", .pad_end = " + detail::pair_text(g.pad_end) + ", .stride = " + detail::pair_text(g.stride) +
         ", .dilation = " + detail::pair_text(g.dilation) + ", .alpha = " + literal(op.conv().alpha, ir::dtype::f32) +
         (g.groups != 1 ? ", .groups = " + number(g.groups) : std::string()) +
         (g.type != runtime::element_type::f32 ? ", .type = " + type_text(g.type) : std::string()) + "}";
}

/// The ein::runtime::onednn_matmul_geometry of bfloat16 GEMM `op` (plan::onednn_matmul_accepts):
/// each operand's batch, row and column strides, a transposed one's rows a column apart.
inline ein::runtime::onednn_matmul_geometry onednn_matmul_geometry_of(const match::instance& op) {
  if (!ein::plan::onednn_matmul_accepts(op)) throw internal_error("onednn_matmul_geometry_of: oneDNN cannot run " + op.str());
  auto& g = op.gemm();
  ein::runtime::onednn_matmul_geometry r{.batch = g.batch, .m = g.m, .n = g.n, .k = g.k};
  auto set = [](std::int64_t (&to)[3], std::int64_t batch, bool transposed, std::int64_t ld) {
    to[0] = batch, to[1] = transposed ? 1 : ld, to[2] = transposed ? ld : 1;
  };
  set(r.a_strides, g.stride_a, g.trans_a, g.lda);
  set(r.b_strides, g.stride_b, g.trans_b, g.ldb);
  set(r.c_strides, g.stride_c, false, g.ldc);
  r.alpha = static_cast<float>(g.alpha);
  return r;
}

/// The C++ initializer of onednn_matmul_geometry_of(op).
/// Example (batch 2, b transposed): `ein::runtime::onednn_matmul_geometry{.batch = 2, .m = 3,
/// .n = 4, .k = 5, .a_strides = {15, 5, 1}, .b_strides = {20, 1, 5}, .c_strides = {12, 4, 1},
/// .alpha = static_cast<float>(1.0)}`.
inline std::string onednn_matmul_geometry_text(const match::instance& op) {
  const auto g = onednn_matmul_geometry_of(op);
  auto strides = [](const std::int64_t (&s)[3]) {
    return "{" + number(s[0]) + ", " + number(s[1]) + ", " + number(s[2]) + "}";
  };
  return "ein::runtime::onednn_matmul_geometry{.batch = " + number(g.batch) + ", .m = " + number(g.m) +
         ", .n = " + number(g.n) + ", .k = " + number(g.k) + ", .a_strides = " + strides(g.a_strides) +
         ", .b_strides = " + strides(g.b_strides) + ", .c_strides = " + strides(g.c_strides) +
         ", .alpha = " + literal(op.gemm().alpha, ir::dtype::f32) + "}";
}

/// The C++ initializer of the ein::runtime::onednn_epilogue of epilogue `e` (a plan's, on a call
/// oneDNN runs): `ein::runtime::onednn_epilogue{.bias = true, .residual = false, .relu = true}`.
inline std::string onednn_epilogue_text(const ein::plan::epilogue& e) {
  return std::string("ein::runtime::onednn_epilogue{.bias = ") + flag(e.bias.has_value()) +
         ", .residual = " + flag(e.residual.has_value()) + ", .relu = " + flag(e.relu) + "}";
}

/// Writes `inline const ein::runtime::onednn_convolution& <function>()`: the primitive of the
/// step, ending in `epilogue` where it has one, built on its first call (a function-local static,
/// so once per process and safely from several threads) and kept until exit.
/// @pre ein::plan::onednn_accepts(op).
inline void emit_onednn_state(writer& w, const match::instance& op, const std::string& function,
                              const std::optional<ein::plan::epilogue>& epilogue = std::nullopt) {
  w.open("inline const ein::runtime::onednn_convolution& " + function + "()");
  w.line("static const ein::runtime::onednn_convolution state(");
  w.line("    " + onednn_geometry_text(op) + (epilogue ? "," : ");"));
  if (epilogue) w.line("    " + onednn_epilogue_text(*epilogue) + ");");
  w.line("return state;");
  w.close();
}

/// The pointers of a convolution call: the source and the weights (each advanced by its operand's
/// offset), from `inputs` naming the start of each operand's buffer.
/// @pre ein::plan::onednn_accepts(op).
inline std::array<std::string, 2> onednn_operands(const match::instance& op, const std::vector<std::string>& inputs) {
  if (!ein::plan::onednn_accepts(op)) throw internal_error("onednn_operands: oneDNN cannot run " + op.str());
  if (inputs.size() != 2) throw internal_error("onednn_operands: a convolution has two inputs");
  return {advanced(inputs[0], op.inputs[0].offset), advanced(inputs[1], op.inputs[1].offset)};
}

}  // namespace ein::codegen::library
