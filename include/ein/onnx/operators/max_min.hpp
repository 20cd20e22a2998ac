// Max and Min: the largest or smallest of one or more inputs at each element, with ONNX's
// multidirectional broadcasting (numpy's).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_max_min(node_context& n) {
  if (n.inputs() == 0) n.fail("has no inputs");
  std::vector<operand> xs;
  for (std::size_t k = 0; k < n.inputs(); ++k) xs.push_back(n.tensor(k, "data_" + std::to_string(k), true));
  std::vector<std::int64_t> shape = xs[0].shape;
  for (std::size_t k = 1; k < xs.size(); ++k) {
    same_type(n, xs[0], xs[k]);
    shape = broadcast(n, shape, xs[k].shape);
  }
  const ir::binary_op f = n.node().op_type() == "Max" ? ir::binary_op::max : ir::binary_op::min;
  define_elementwise(n, shape, xs[0].type, [&](const std::vector<ir::iterator>& i) {
    ir::expr v = broadcast_read(xs[0], i);
    for (std::size_t k = 1; k < xs.size(); ++k) v = ir::make_binary(f, v, broadcast_read(xs[k], i));
    return v;
  });
}

/// From opset 8 (numpy broadcasting; before it, inputs of one shape).
inline std::vector<converter> max_min_converters() {
  return {{"Max", 8, {}, {}, convert_max_min}, {"Min", 8, {}, {}, convert_max_min}};
}

}  // namespace ein::onnx::operators
