// PRelu: max(x, 0) + slope · min(x, 0), the slope broadcast to x.
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_prelu(node_context& n) {
  operand x = n.tensor(0, "X", true), slope = n.tensor(1, "slope", true);
  ir::dtype type = same_type(n, x, slope);
  // unidirectional: the slope broadcasts to x, never x to the slope
  if (broadcast(n, x.shape, slope.shape) != x.shape)
    n.fail("slope `" + slope.name + "` of shape " + shape_text(slope.shape) + " does not broadcast to X's " +
           shape_text(x.shape));
  define_elementwise(n, x.shape, type, [&](const std::vector<ir::iterator>& i) {
    auto v = [&] { return x.read(indices(i)); };
    return ir::max(v(), ir::make_constant(0)) + broadcast_read(slope, i) * ir::min(v(), ir::make_constant(0));
  });
}

/// From opset 7 (unidirectional broadcasting of the slope).
inline converter prelu_converter() { return {"PRelu", 7, {}, {}, convert_prelu}; }

}  // namespace ein::onnx::operators
