// HardSwish: x · max(0, min(1, x / 6 + 1/2)).
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_hard_swish(node_context& n) {
  operand x = n.tensor(0, "X", true);
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    auto v = [&] { return x.read(indices(i)); };
    ir::expr gate = ir::max(ir::make_constant(0),
                            ir::min(ir::make_constant(1), v() * ir::make_constant(1.0 / 6) + ir::make_constant(0.5)));
    return v() * gate;
  });
}

inline converter hard_swish_converter() { return {"HardSwish", 14, {}, {}, convert_hard_swish}; }

}  // namespace ein::onnx::operators
