// CUDA emitter for convolution instances: cuDNN forward and backward-data calls with
// descriptors built from the inferred geometry and strides, either all in one block or split into
// a step state set up once (emit_cudnn_state) and its per-run call (emit_cudnn_run).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ein/codegen/library/common.hpp"
#include "ein/codegen/library/cublas.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/detail/error.hpp"
#include "ein/match/instance.hpp"

namespace ein::codegen::library {

/// True when the legacy cuDNN API can run the instance as matched: a conv2d or conv_transpose2d
/// with symmetric padding and a packed KCRS or KRSC filter. (Other filter layouts are read from
/// a packed copy made by match::repack_filter, free at run time since weights are known.)
inline bool cudnn_supports(const match::instance& op) {
  if (op.kind != match::op_kind::conv2d && op.kind != match::op_kind::conv_transpose2d)
    return false;
  auto& a = op.conv();
  return a.symmetric() && (a.filter_layout == "kcrs" || a.filter_layout == "krsc");
}

namespace detail {

inline std::string cudnn_list(std::initializer_list<std::int64_t> v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + number(x);
  return s;
}

inline std::string cudnn_data(const match::instance& op) {
  return op.type == ir::dtype::f32 ? "CUDNN_DATA_FLOAT" : "CUDNN_DATA_DOUBLE";
}

}  // namespace detail

/// Writes `static const ein::runtime::cudnn_convolution& <function>()`: the state of one
/// conv2d (forward) or conv_transpose2d (backward data) step, built on its first call and kept
/// until exit. Its setup sets strided N-d tensor descriptors for x and y, a 4-D filter
/// descriptor (KCRS: CUDNN_TENSOR_NCHW, KRSC: CUDNN_TENSOR_NHWC) and the convolution descriptor,
/// chooses the first runnable algorithm of cuDNN's heuristics (…Algorithm_v7) on `handle` (an
/// expression giving the plan's cudnnHandle_t) and allocates its workspace. Every status goes
/// through EIN_CUDNN_CHECK (ein/runtime/cudnn.hpp).
/// @pre cudnn_supports(op).
inline void emit_cudnn_state(writer& w, const match::instance& op, const std::string& function,
                             const std::string& handle) {
  if (!cudnn_supports(op))
    throw internal_error(std::string("emit_cudnn_state: the legacy cuDNN API cannot run ") + op.str());
  auto& a = op.conv();
  bool forward = op.kind == match::op_kind::conv2d;
  std::string data = detail::cudnn_data(op), kind = forward ? "Forward" : "BackwardData";
  std::string perf = forward ? "cudnnConvolutionFwdAlgoPerf_t" : "cudnnConvolutionBwdDataAlgoPerf_t";
  std::string descs = forward ? "c.x, c.w, c.conv, c.y" : "c.w, c.y, c.conv, c.x";
  std::string algo = forward ? "c.forward_algo" : "c.backward_data_algo";
  auto& xs = a.x_strides;
  auto& ys = a.y_strides;
  w.open("static const ein::runtime::cudnn_convolution& " + function + "()");
  w.open("static const ein::runtime::cudnn_convolution state([](ein::runtime::cudnn_convolution& c)");
  w.line("const int x_dims[4] = {" + detail::cudnn_list({a.n, a.c, a.h, a.w}) + "}, x_strides[4] = {" +
         detail::cudnn_list({xs[0], xs[1], xs[2], xs[3]}) + "};");
  w.line("const int y_dims[4] = {" + detail::cudnn_list({a.n, a.k, a.p, a.q}) + "}, y_strides[4] = {" +
         detail::cudnn_list({ys[0], ys[1], ys[2], ys[3]}) + "};");
  w.line("EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(c.x, " + data + ", 4, x_dims, x_strides));");
  w.line("EIN_CUDNN_CHECK(cudnnSetTensorNdDescriptor(c.y, " + data + ", 4, y_dims, y_strides));");
  w.line("EIN_CUDNN_CHECK(cudnnSetFilter4dDescriptor(c.w, " + data + ", " +
         (a.filter_layout == "kcrs" ? "CUDNN_TENSOR_NCHW" : "CUDNN_TENSOR_NHWC") + ", " +
         detail::cudnn_list({a.k, a.c, a.r, a.s}) + "));");
  w.line("EIN_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(c.conv, " +
         detail::cudnn_list({a.pad_h, a.pad_w, a.stride_h, a.stride_w, a.dilation_h, a.dilation_w}) +
         ", CUDNN_CROSS_CORRELATION, " + data + "));");
  w.line(perf + " perf[8];");
  w.line("int found = 0;");
  w.line("EIN_CUDNN_CHECK(cudnnGetConvolution" + kind + "Algorithm_v7(" + handle + ", " + descs +
         ", 8, &found, perf));");
  w.line(algo + " = ein::runtime::first_runnable(perf, found);");
  w.line("size_t bytes = 0;");
  w.line("EIN_CUDNN_CHECK(cudnnGetConvolution" + kind + "WorkspaceSize(" + handle + ", " + descs +
         ", " + algo + ", &bytes));");
  w.line("c.allocate_workspace(bytes);");
  w.close(");");
  w.line("return state;");
  w.close();
}

/// Writes the run-time call of a convolution step whose state `state` (an expression giving the
/// step's ein::runtime::cudnn_convolution, emit_cudnn_state) is set up, on `handle` (its stream
/// already set): cudnnConvolutionForward or cudnnConvolutionBackwardData with alpha from the
/// instance and beta 0. `inputs`/`output` name device pointers to each operand's buffer.
/// @pre cudnn_supports(op).
inline void emit_cudnn_run(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                           const std::string& output, const std::string& state,
                           const std::string& handle) {
  if (!cudnn_supports(op))
    throw internal_error(std::string("emit_cudnn_run: the legacy cuDNN API cannot run ") + op.str());
  if (inputs.size() != 2) throw internal_error("emit_cudnn_run: a convolution has two inputs");
  bool forward = op.kind == match::op_kind::conv2d;
  std::string scalar = op.type == ir::dtype::f32 ? "float" : "double";
  std::string in = advanced(inputs[0], op.inputs[0].offset), wt = advanced(inputs[1], op.inputs[1].offset);
  w.open("");
  w.line("const ein::runtime::cudnn_convolution& ein_conv = " + state + ";");
  w.line("const " + scalar + " ein_alpha = " + literal(op.conv().alpha, op.type) +
         ", ein_beta = " + literal(0.0, op.type) + ";");
  if (forward)
    w.line("EIN_CUDNN_CHECK(cudnnConvolutionForward(" + handle + ", &ein_alpha, ein_conv.x, " + in +
           ", ein_conv.w, " + wt + ", ein_conv.conv, ein_conv.forward_algo, ein_conv.workspace, "
           "ein_conv.workspace_size, &ein_beta, ein_conv.y, " + output + "));");
  else
    w.line("EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(" + handle + ", &ein_alpha, ein_conv.w, " + wt +
           ", ein_conv.y, " + in + ", ein_conv.conv, ein_conv.backward_data_algo, ein_conv.workspace, "
           "ein_conv.workspace_size, &ein_beta, ein_conv.x, " + output + "));");
  w.close();
}

/// Writes a block computing a conv2d (cudnnConvolutionForward) or conv_transpose2d
/// (cudnnConvolutionBackwardData) instance. x and y get strided 4-D descriptors (any layout);
/// the filter a 4-D filter descriptor in NCHW (KCRS) or NHWC (KRSC) format. The algorithm is
/// cuDNN's first heuristic choice; its workspace is allocated and freed around the call.
/// `inputs`/`output` name device pointers to the start of each operand's flattened source.
/// Example (3×3, padding 1, NHWC): `cudnnSetConvolution2dDescriptor(ein_conv, 1, 1, 1, 1, 1, 1,
/// CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)` … `cudnnConvolutionForward(handle, &ein_alpha,
/// ein_x, x, ein_w, w, ein_conv, ein_algo, ein_ws, ein_ws_size, &ein_beta, ein_y, out)`.
/// @pre cudnn_supports(op).
inline void emit_cudnn(writer& w, const match::instance& op, const std::vector<std::string>& inputs,
                       const std::string& output, const call_names& names = {}) {
  if (!cudnn_supports(op))
    throw internal_error(std::string("emit_cudnn: the legacy cuDNN API cannot run ") + op.str());
  if (inputs.size() != 2) throw internal_error("emit_cudnn: a convolution has two inputs");
  auto& a = op.conv();
  bool forward = op.kind == match::op_kind::conv2d;
  bool f32 = op.type == ir::dtype::f32;
  std::string scalar = f32 ? "float" : "double",
              data = f32 ? "CUDNN_DATA_FLOAT" : "CUDNN_DATA_DOUBLE";
  auto& chk = names.check;
  auto list = [](std::initializer_list<std::int64_t> v) {
    std::string s;
    for (auto x : v) s += (s.empty() ? "" : ", ") + number(x);
    return s;
  };
  auto& xs = a.x_strides;
  auto& ys = a.y_strides;
  // forward: x = input 0, y = output; backward data: y (dy) = input 0, x (dx) = output.
  std::string x_ptr = forward ? advanced(inputs[0], op.inputs[0].offset) : output;
  std::string y_ptr = forward ? output : advanced(inputs[0], op.inputs[0].offset);
  std::string w_ptr = advanced(inputs[1], op.inputs[1].offset);
  std::string kind = forward ? "Forward" : "BackwardData";
  w.open("");
  w.line("cudnnTensorDescriptor_t ein_x, ein_y;");
  w.line("cudnnFilterDescriptor_t ein_w;");
  w.line("cudnnConvolutionDescriptor_t ein_conv;");
  w.line(chk + "(cudnnCreateTensorDescriptor(&ein_x));");
  w.line(chk + "(cudnnCreateTensorDescriptor(&ein_y));");
  w.line(chk + "(cudnnCreateFilterDescriptor(&ein_w));");
  w.line(chk + "(cudnnCreateConvolutionDescriptor(&ein_conv));");
  w.line(chk + "(cudnnSetTensor4dDescriptorEx(ein_x, " + data + ", " +
         list({a.n, a.c, a.h, a.w, xs[0], xs[1], xs[2], xs[3]}) + "));");
  w.line(chk + "(cudnnSetTensor4dDescriptorEx(ein_y, " + data + ", " +
         list({a.n, a.k, a.p, a.q, ys[0], ys[1], ys[2], ys[3]}) + "));");
  w.line(chk + "(cudnnSetFilter4dDescriptor(ein_w, " + data + ", " +
         (a.filter_layout == "kcrs" ? "CUDNN_TENSOR_NCHW" : "CUDNN_TENSOR_NHWC") + ", " +
         list({a.k, a.c, a.r, a.s}) + "));");
  w.line(chk + "(cudnnSetConvolution2dDescriptor(ein_conv, " +
         list({a.pad_h, a.pad_w, a.stride_h, a.stride_w, a.dilation_h, a.dilation_w}) +
         ", CUDNN_CROSS_CORRELATION, " + data + "));");
  std::string perf =
      forward ? "cudnnConvolutionFwdAlgoPerf_t" : "cudnnConvolutionBwdDataAlgoPerf_t";
  std::string descs = forward ? "ein_x, ein_w, ein_conv, ein_y" : "ein_w, ein_y, ein_conv, ein_x";
  w.line(perf + " ein_perf;");
  w.line("int ein_found = 0;");
  w.line(chk + "(cudnnGetConvolution" + kind + "Algorithm_v7(" + names.handle + ", " + descs +
         ", 1, &ein_found, &ein_perf));");
  w.line("size_t ein_ws_size = 0;");
  w.line(chk + "(cudnnGetConvolution" + kind + "WorkspaceSize(" + names.handle + ", " + descs +
         ", ein_perf.algo, &ein_ws_size));");
  w.line("void* ein_ws = nullptr;");
  w.line("if (ein_ws_size > 0) " + names.cuda_check + "(cudaMalloc(&ein_ws, ein_ws_size));");
  w.line("const " + scalar + " ein_alpha = " + literal(a.alpha, op.type) +
         ", ein_beta = " + literal(0.0, op.type) + ";");
  if (forward)
    w.line(chk + "(cudnnConvolutionForward(" + names.handle + ", &ein_alpha, ein_x, " + x_ptr +
           ", ein_w, " + w_ptr +
           ", ein_conv, ein_perf.algo, ein_ws, ein_ws_size, &ein_beta, ein_y, " + y_ptr + "));");
  else
    w.line(chk + "(cudnnConvolutionBackwardData(" + names.handle + ", &ein_alpha, ein_w, " + w_ptr +
           ", ein_y, " + y_ptr +
           ", ein_conv, ein_perf.algo, ein_ws, ein_ws_size, &ein_beta, ein_x, " + x_ptr + "));");
  w.line("if (ein_ws) " + names.cuda_check + "(cudaFree(ein_ws));");
  w.line(chk + "(cudnnDestroyConvolutionDescriptor(ein_conv));");
  w.line(chk + "(cudnnDestroyFilterDescriptor(ein_w));");
  w.line(chk + "(cudnnDestroyTensorDescriptor(ein_y));");
  w.line(chk + "(cudnnDestroyTensorDescriptor(ein_x));");
  w.close();
}

}  // namespace ein::codegen::library
