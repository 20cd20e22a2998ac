// Host emitter for convolution instances oneDNN runs (plan::onednn_accepts): their geometry in
// oneDNN's terms, the primitive a plan builds once per step, and the per-run call.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/detail/error.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein::codegen::library {

namespace detail {

inline std::string dims_text(const std::array<std::int64_t, 4>& dims, const std::array<std::int64_t, 4>& strides,
                             const std::string& name) {
  std::string d, s;
  for (int k = 0; k < 4; ++k) {
    d += (k ? ", " : "") + number(dims[k]);
    // oneDNN asks for a positive stride even where a dimension has one element.
    s += (k ? ", " : "") + number(dims[k] == 1 && strides[k] <= 0 ? 1 : strides[k]);
  }
  return "." + name + "_dims = {" + d + "}, ." + name + "_strides = {" + s + "}";
}

inline std::string pair_text(std::int64_t a, std::int64_t b) { return "{" + number(a) + ", " + number(b) + "}"; }

}  // namespace detail

/// The C++ initializer of the ein::runtime::onednn_geometry of a convolution: a conv2d reads
/// src = x (n, c, h, w) with weights w (k, c, r, s) into dst = y (n, k, p, q); a conv_transpose2d
/// reads src = y with weights w read as (c, k, r, s) (oneDNN's deconvolution weights are those of
/// the convolution it transposes, channels swapped) into dst = x.
/// Example (3×3 NHWC conv2d, KRSC filter): `ein::runtime::onednn_geometry{.forward = true,
/// .src_dims = {1, 512, 7, 7}, .src_strides = {25088, 1, 3584, 512}, .weights_dims = {512, 512, 3,
/// 3}, .weights_strides = {4608, 1, 1536, 512}, ..., .pad = {1, 1}, .pad_end = {1, 1}, ...}`.
/// @pre ein::plan::onednn_accepts(op).
inline std::string onednn_geometry_text(const match::instance& op) {
  if (!ein::plan::onednn_accepts(op)) throw internal_error("onednn_geometry_text: oneDNN cannot run " + op.str());
  auto& a = op.conv();
  const bool forward = op.kind == match::op_kind::conv2d;
  using dims = std::array<std::int64_t, 4>;
  const dims x{a.n, a.c, a.h, a.w}, y{a.n, a.k, a.p, a.q};
  const dims w = forward ? dims{a.k, a.c, a.r, a.s} : dims{a.c, a.k, a.r, a.s};
  const dims ws = forward ? a.w_strides : dims{a.w_strides[1], a.w_strides[0], a.w_strides[2], a.w_strides[3]};
  return std::string("ein::runtime::onednn_geometry{.forward = ") + (forward ? "true" : "false") + ", " +
         detail::dims_text(forward ? x : y, forward ? a.x_strides : a.y_strides, "src") + ", " +
         detail::dims_text(w, ws, "weights") + ", " +
         detail::dims_text(forward ? y : x, forward ? a.y_strides : a.x_strides, "dst") +
         ", .pad = " + detail::pair_text(a.pad_h, a.pad_w) +
         ", .pad_end = " + detail::pair_text(a.pad_h_end, a.pad_w_end) +
         ", .stride = " + detail::pair_text(a.stride_h, a.stride_w) +
         ", .dilation = " + detail::pair_text(a.dilation_h, a.dilation_w) +
         ", .alpha = " + literal(a.alpha, op.type) + "}";
}

/// Writes `inline const ein::runtime::onednn_convolution& <function>()`: the primitive of the
/// step, built on its first call (a function-local static, so once per process and safely from
/// several threads) and kept until exit.
/// @pre ein::plan::onednn_accepts(op).
inline void emit_onednn_state(writer& w, const match::instance& op, const std::string& function) {
  w.open("inline const ein::runtime::onednn_convolution& " + function + "()");
  w.line("static const ein::runtime::onednn_convolution state(");
  w.line("    " + onednn_geometry_text(op) + ");");
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
