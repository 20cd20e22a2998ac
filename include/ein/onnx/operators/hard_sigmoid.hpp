// HardSigmoid: max(0, min(1, alpha · x + beta)).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_hard_sigmoid(node_context& n) {
  operand x = n.tensor(0, "X", true);
  double alpha = n.attr_float("alpha", 0.2), beta = n.attr_float("beta", 0.5);
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    ir::expr line = ir::make_constant(alpha) * x.read(indices(i)) + ir::make_constant(beta);
    return ir::max(ir::make_constant(0), ir::min(ir::make_constant(1), line));
  });
}

inline converter hard_sigmoid_converter() {
  return {"HardSigmoid", 6, {{"alpha", attr_float}, {"beta", attr_float}}, {}, convert_hard_sigmoid};
}

}  // namespace ein::onnx::operators
