// The importer's table: every ONNX operator ein reads, one converter each (docs/onnx.md lists
// them with their attributes).
#pragma once

#include <algorithm>
#include <vector>

#include "ein/onnx/operators/arithmetic.hpp"
#include "ein/onnx/operators/average_pool.hpp"
#include "ein/onnx/operators/batch_normalization.hpp"
#include "ein/onnx/operators/cast.hpp"
#include "ein/onnx/operators/clip.hpp"
#include "ein/onnx/operators/concat.hpp"
#include "ein/onnx/operators/constant.hpp"
#include "ein/onnx/operators/conv.hpp"
#include "ein/onnx/operators/conv_transpose.hpp"
#include "ein/onnx/operators/einsum.hpp"
#include "ein/onnx/operators/gemm.hpp"
#include "ein/onnx/operators/global_average_pool.hpp"
#include "ein/onnx/operators/hard_sigmoid.hpp"
#include "ein/onnx/operators/hard_swish.hpp"
#include "ein/onnx/operators/leaky_relu.hpp"
#include "ein/onnx/operators/matmul.hpp"
#include "ein/onnx/operators/max_min.hpp"
#include "ein/onnx/operators/max_pool.hpp"
#include "ein/onnx/operators/pad.hpp"
#include "ein/onnx/operators/prelu.hpp"
#include "ein/onnx/operators/reshape.hpp"
#include "ein/onnx/operators/softmax.hpp"
#include "ein/onnx/operators/transpose.hpp"
#include "ein/onnx/operators/unary.hpp"

namespace ein::onnx::operators {

/// Every converter, in alphabetical order of op type.
inline const std::vector<converter>& all() {
  static const std::vector<converter> table = [] {
    std::vector<converter> t = {average_pool_converter(),  batch_normalization_converter(), clip_converter(),
                                concat_converter(),        constant_converter(),            conv_converter(),
                                conv_transpose_converter(), einsum_converter(),             gemm_converter(),
                                global_average_pool_converter(), hard_sigmoid_converter(),  hard_swish_converter(),
                                leaky_relu_converter(),    matmul_converter(),              max_pool_converter(),
                                pad_converter(),           prelu_converter(),               softmax_converter(),
                                transpose_converter()};
    for (auto& list : {arithmetic_converters(), cast_converters(), max_min_converters(), reshape_converters(),
                       unary_converters()})
      t.insert(t.end(), list.begin(), list.end());
    std::sort(t.begin(), t.end(), [](const converter& a, const converter& b) { return a.op_type < b.op_type; });
    return t;
  }();
  return table;
}

}  // namespace ein::onnx::operators
