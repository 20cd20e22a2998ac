// CUDA emitter for convolution instances cuDNN's legacy API runs (plan::cudnn_accepts): their
// geometry, the step state set up once (emit_cudnn_state) and the per-run call (emit_cudnn_run):
// cuDNN forward for conv2d, backward data for conv_transpose2d.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/error.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/runtime/convolution_geometry.hpp"

namespace ein::codegen::library {

/// The geometry cuDNN gets for the instance (runtime::convolution_geometry), `tf32` as given,
/// fused with the epilogue of form `e` where one is given.
/// @pre ein::plan::cudnn_accepts(op); with `e`, ein::plan::cudnn.takes(op, *e).
inline runtime::convolution_geometry geometry(const match::instance& op, bool tf32,
                                              const std::optional<ein::plan::epilogue_form>& e = std::nullopt) {
  if (!ein::plan::cudnn_accepts(op)) throw internal_error(std::string("geometry: the legacy cuDNN API cannot run ") + op.str());
  auto& a = op.conv();
  auto i = [](std::int64_t v) { return static_cast<int>(v); };
  runtime::convolution_geometry g;
  g.forward = !a.backward_data;
  g.type = runtime_type(op.type);
  g.krsc = a.filter_format == "krsc";
  const std::int64_t x_dims[4] = {a.n, a.c, a.h, a.w}, y_dims[4] = {a.n, a.k, a.p, a.q},
                     filter[4] = {a.k, a.filter_channels(), a.r, a.s};
  for (int d = 0; d < 4; ++d) {
    g.x_dims[d] = i(x_dims[d]);
    g.x_strides[d] = i(a.x_strides[d]);
    g.y_dims[d] = i(y_dims[d]);
    g.y_strides[d] = i(a.y_strides[d]);
    g.filter[d] = i(filter[d]);
  }
  g.pad[0] = i(a.pad_h), g.pad[1] = i(a.pad_w);
  g.stride[0] = i(a.stride_h), g.stride[1] = i(a.stride_w);
  g.dilation[0] = i(a.dilation_h), g.dilation[1] = i(a.dilation_w);
  g.tf32 = tf32 && op.type == ir::dtype::f32;
  g.groups = i(a.groups);
  if (e) {
    if (!ein::plan::cudnn.takes(op, *e)) throw internal_error("geometry: cuDNN fuses no such epilogue after " + op.str());
    g.fused = true;
    g.relu = e->relu;
  }
  return g;
}

namespace detail {

inline std::string int_list(const int* v, int n) {
  std::string s;
  for (int k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return "{" + s + "}";
}

}  // namespace detail

/// The C++ initializer of a geometry: `ein::runtime::convolution_geometry{.forward = true, ...}`.
inline std::string geometry_text(const runtime::convolution_geometry& g) {
  using detail::int_list;
  const std::string type = g.type == runtime::element_type::f32 ? std::string() : ", .type = " + type_text(g.type);
  return "ein::runtime::convolution_geometry{.forward = " + flag(g.forward) + type + ", .krsc = " + flag(g.krsc) +
         ", .x_dims = " + int_list(g.x_dims, 4) + ", .x_strides = " +
         int_list(g.x_strides, 4) + ", .y_dims = " + int_list(g.y_dims, 4) + ", .y_strides = " +
         int_list(g.y_strides, 4) + ", .filter = " + int_list(g.filter, 4) + ", .pad = " + int_list(g.pad, 2) +
         ", .stride = " + int_list(g.stride, 2) + ", .dilation = " + int_list(g.dilation, 2) + ", .tf32 = " +
         flag(g.tf32) + (g.fused ? ", .fused = true, .relu = " + flag(g.relu) : std::string()) +
         (g.groups != 1 ? ", .groups = " + std::to_string(g.groups) : std::string()) + "}";
}

/// Writes `static const ein::runtime::cudnn_convolution& <function>(cudaStream_t s)`:
/// the state of one conv2d (forward) or conv_transpose2d (backward data) step for stream `s` on
/// the calling thread (runtime::per_stream: its own workspace), set up on its first call there
/// from the instance's geometry (descriptors, CUDNN_FMA_MATH unless `tf32`, the first algorithm
/// of cuDNN's heuristics that this precision allows, its workspace; with epilogue `e`, the
/// algorithm cuDNN's fused call takes when tried; runtime::cudnn_convolution) on `handle` (an
/// expression of `s` giving the plan's cudnnHandle_t), and kept for the process.
/// @pre ein::plan::cudnn_accepts(op).
inline void emit_cudnn_state(writer& w, const match::instance& op, const std::string& function,
                             const std::string& handle, bool tf32,
                             const std::optional<ein::plan::epilogue_form>& e = std::nullopt) {
  const std::string g = geometry_text(geometry(op, tf32, e));  // first: an op cuDNN refuses writes nothing
  w.open("static const ein::runtime::cudnn_convolution& " + function + "(cudaStream_t s)");
  w.line(state_table("cudnn_convolution", "states"));
  w.open("return states.get(ein::runtime::current_device(), s, [&]");
  w.line("return std::make_unique<ein::runtime::cudnn_convolution>(");
  w.line("    " + handle + ", " + g + ");");
  w.close(");");
  w.close();
}

/// The names a fused convolution's run reads besides its operands: its bias, and its residual
/// (empty: none).
struct fused_operands {
  std::string bias, residual;
};

/// Writes the run-time call of a convolution step whose state `state` (an expression giving the
/// step's ein::runtime::cudnn_convolution, emit_cudnn_state) is set up, on `handle` (its stream
/// already set): cudnnConvolutionForward or cudnnConvolutionBackwardData with alpha from the
/// instance and beta 0. `inputs`/`output` name device pointers to each operand's buffer.
/// Example (3×3, NHWC): `cudnnConvolutionForward(handle, &ein_alpha, ein_conv.x, x, ein_conv.w, k,
/// ein_conv.conv, ein_conv.forward_algo, ein_conv.workspace, ein_conv.workspace_size, &ein_beta,
/// ein_conv.y, y)`. With `fused` (a step that ends in its epilogue, its state made from a fused
/// geometry): the state's forward_bias_activation (cudnnConvolutionBiasActivationForward where
/// it took an algorithm at prepare), the residual as z with alpha2 1 (else y with alpha2 0).
/// @pre ein::plan::cudnn_accepts(op).
inline void emit_cudnn_run(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                           const std::string& output, const std::string& state, const std::string& handle,
                           const std::optional<fused_operands>& fused = std::nullopt) {
  if (!ein::plan::cudnn_accepts(op))
    throw internal_error(std::string("emit_cudnn_run: the legacy cuDNN API cannot run ") + op.str());
  if (inputs.size() != 2) throw internal_error("emit_cudnn_run: a convolution has two inputs");
  bool forward = !op.conv().backward_data;
  // cuDNN's scalars: double for double data, float for the rest (16-bit data too)
  const ir::dtype scale = op.type == ir::dtype::f64 ? ir::dtype::f64 : ir::dtype::f32;
  const std::string scalar = scale == ir::dtype::f64 ? "double" : "float";
  std::string in = advanced(inputs[0], op.inputs[0].offset), wt = advanced(inputs[1], op.inputs[1].offset);
  w.open("");
  w.line("const ein::runtime::cudnn_convolution& ein_conv = " + state + ";");
  // beta for cuDNN's plain calls; alpha2, the residual's scale, for the fused one
  const bool residual = fused && !fused->residual.empty();
  w.line("const " + scalar + " ein_alpha = " + literal(op.conv().alpha, scale) + ", " +
         (fused ? "ein_alpha2 = " + literal(residual ? 1.0 : 0.0, scale) : "ein_beta = " + literal(0.0, scale)) +
         ";");
  if (fused) {
    w.line("ein_conv.forward_bias_activation(" + handle + ", &ein_alpha, " + in + ", " + wt + ", &ein_alpha2, " +
           (residual ? fused->residual : output) + ", " + fused->bias + ", " + output + ");");
  } else if (forward)
    w.line("EIN_CUDNN_CHECK(cudnnConvolutionForward(" + handle + ", &ein_alpha, ein_conv.x, " + in +
           ", ein_conv.w, " + wt + ", ein_conv.conv, ein_conv.forward_algo, ein_conv.workspace, "
           "ein_conv.workspace_size, &ein_beta, ein_conv.y, " + output + "));");
  else
    w.line("EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(" + handle + ", &ein_alpha, ein_conv.w, " + wt +
           ", ein_conv.y, " + in + ", ein_conv.conv, ein_conv.backward_data_algo, ein_conv.workspace, "
           "ein_conv.workspace_size, &ein_beta, ein_conv.x, " + output + "));");
  w.close();
}

}  // namespace ein::codegen::library
