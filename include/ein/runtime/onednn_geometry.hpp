// The geometry of a convolution step in oneDNN's terms, and what the step does to its result before
// writing it, apart from oneDNN itself: what the code generator computes and writes, and what
// ein::runtime::onednn_convolution builds its primitive from.
#pragma once

#include <cstdint>

#include "ein/runtime/element_type.hpp"

namespace ein::runtime {

/// A 2-D convolution as oneDNN's forward primitives take it, in their terms: src (n, ic, ih, iw),
/// weights (oc, ic, kh, kw) and dst (n, oc, oh, ow), each with any positive strides (elements);
/// `pad`/`pad_end` before the first and after the last row and column (`pad_end` negative: the
/// last rows or columns of src are not read), `dilation` as ein counts
/// it (1: none; oneDNN's is one less). `forward`: a convolution (convolution_forward), else a
/// transposed one (deconvolution_forward). dst = alpha · (src ⋆ weights). With `groups` G > 1 (a
/// grouped convolution, depthwise when G = ic), weights are (oc, ic/G, kh, kw), their oc/G filters
/// of a group stepping as the first dimension does, and oneDNN reads them with a groups dimension
/// in front: (G, oc/G, ic/G, kh, kw). `type`: the element type of src, weights and dst, float or
/// bfloat16 (oneDNN accumulates a bfloat16 convolution in float and rounds dst once).
/// Example: ein's 3×3 NHWC conv2d of x [1, 7, 7, 512] is `{.forward = true, .src_dims = {1, 512,
/// 7, 7}, .src_strides = {25088, 1, 3584, 512}, ...}`.
struct onednn_geometry {
  bool forward = true;
  std::int64_t src_dims[4] = {}, src_strides[4] = {};
  std::int64_t weights_dims[4] = {}, weights_strides[4] = {};
  std::int64_t dst_dims[4] = {}, dst_strides[4] = {};
  std::int64_t pad[2] = {}, pad_end[2] = {}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  float alpha = 1;
  std::int64_t groups = 1;
  element_type type = element_type::f32;
};

/// What a convolution step adds to its result before writing it, as oneDNN runs it in the call
/// (a plan's epilogue, plan/epilogue.hpp): `dst = relu?(alpha · (src ⋆ weights) + bias[oc] +
/// residual)`, the bias one value per output channel (oneDNN's bias), the residual a tensor laid
/// out as dst (a binary add post-op), ReLU an eltwise post-op.
struct onednn_epilogue {
  bool bias = false, residual = false, relu = false;
};

}  // namespace ein::runtime
