// Relu, Sigmoid, Tanh, Exp, Sqrt and Identity: one function of each element, no attributes.
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_unary(node_context& n) {
  operand x = n.tensor(0, "X", true);
  const std::string& op = n.node().op_type();
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    ir::expr v = x.read(indices(i));
    if (op == "Identity") return v;
    ir::unary_fn f = op == "Relu"      ? ir::unary_fn::relu
                     : op == "Sigmoid" ? ir::unary_fn::sigmoid
                     : op == "Tanh"    ? ir::unary_fn::tanh
                     : op == "Exp"     ? ir::unary_fn::exp
                                       : ir::unary_fn::sqrt;
    return ir::make_unary(f, v);
  });
}

/// Relu, Sigmoid, Tanh, Exp and Sqrt (opset 6 on: no `consumed_inputs`), Identity.
inline std::vector<converter> unary_converters() {
  return {{"Relu", 6, {}, {}, convert_unary},    {"Sigmoid", 6, {}, {}, convert_unary},
          {"Tanh", 6, {}, {}, convert_unary},    {"Exp", 6, {}, {}, convert_unary},
          {"Sqrt", 6, {}, {}, convert_unary},    {"Identity", 1, {}, {}, convert_unary}};
}

}  // namespace ein::onnx::operators
