// The geometry of a convolution as generated plans hand it to cuDNN (plain values: code
// generation builds it without the CUDA headers, runtime/cudnn.hpp sets descriptors from it).
#pragma once

#include "ein/runtime/element_type.hpp"

namespace ein::runtime {

/// A 2-D convolution as cuDNN's legacy API takes it: x (n, c, h, w) and y (n, k, p, q) with any
/// strides, a packed filter (k, c, r, s), KRSC (cuDNN's NHWC filter format) or else KCRS (NCHW),
/// symmetric padding. `forward`: y = conv(x, w) (cudnnConvolutionForward); else
/// x = conv_transpose(y, w) (cudnnConvolutionBackwardData). `type`: the data's element type;
/// half and bfloat16 accumulate in float on tensor cores (CUDNN_TENSOR_OP_MATH). `tf32`: float
/// data may use TF32 tensor cores; otherwise the convolution runs in full float (CUDNN_FMA_MATH). `fused`: a
/// forward convolution that ends in a bias per output channel, ReLU where `relu` says so, and
/// a residual where a run passes one (cudnnConvolutionBiasActivationForward). `groups` G > 1: a
/// grouped convolution (cudnnSetConvolutionGroupCount), whose filter is (k, c/G, r, s).
struct convolution_geometry {
  bool forward = true;
  element_type type = element_type::f32;
  bool krsc = false;
  int x_dims[4] = {}, x_strides[4] = {};
  int y_dims[4] = {}, y_strides[4] = {};
  int filter[4] = {};
  int pad[2] = {}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  bool tf32 = false;
  bool fused = false, relu = false;
  int groups = 1;
};

}  // namespace ein::runtime
