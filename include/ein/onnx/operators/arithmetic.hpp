// Add, Sub, Mul and Div with ONNX's multidirectional broadcasting (numpy's).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_arithmetic(node_context& n) {
  operand a = n.tensor(0, "A", true), b = n.tensor(1, "B", true);
  ir::dtype type = same_type(n, a, b);
  const std::string& op = n.node().op_type();
  ir::binary_op f = op == "Add"   ? ir::binary_op::add
                    : op == "Sub" ? ir::binary_op::sub
                    : op == "Mul" ? ir::binary_op::mul
                                  : ir::binary_op::div;
  define_elementwise(n, broadcast(n, a.shape, b.shape), type, [&](const std::vector<ir::iterator>& i) {
    return ir::make_binary(f, broadcast_read(a, i), broadcast_read(b, i));
  });
}

/// From opset 7 (numpy broadcasting; before it, `broadcast` and `axis` attributes).
inline std::vector<converter> arithmetic_converters() {
  return {{"Add", 7, {}, {}, convert_arithmetic},
          {"Sub", 7, {}, {}, convert_arithmetic},
          {"Mul", 7, {}, {}, convert_arithmetic},
          {"Div", 7, {}, {}, convert_arithmetic}};
}

}  // namespace ein::onnx::operators
