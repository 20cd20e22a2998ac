// LeakyRelu: max(x, 0) + alpha · min(x, 0).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_leaky_relu(node_context& n) {
  operand x = n.tensor(0, "X", true);
  double alpha = n.attr_float("alpha", 0.01);
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    auto v = [&] { return x.read(indices(i)); };
    return ir::max(v(), ir::make_constant(0)) + ir::make_constant(alpha) * ir::min(v(), ir::make_constant(0));
  });
}

inline converter leaky_relu_converter() { return {"LeakyRelu", 6, {{"alpha", attr_float}}, {}, convert_leaky_relu}; }

}  // namespace ein::onnx::operators
