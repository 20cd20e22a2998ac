// CUDA emitter for convolution instances: cuDNN forward and backward-data calls with
// descriptors built from the inferred geometry and strides.
#pragma once

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
