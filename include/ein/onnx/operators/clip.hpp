// Clip: min(max(x, min), max), each bound where given (attributes before opset 11, inputs read
// at import from it on: ReLU6 is Clip(x, 0, 6)).
#pragma once

#include <optional>

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_clip(node_context& n) {
  operand x = n.tensor(0, "input", true);
  std::optional<double> lo, hi;
  if (n.opset() < 11) {
    if (n.has("min")) lo = n.attr_float("min", 0);
    if (n.has("max")) hi = n.attr_float("max", 0);
  } else {
    auto bound = [&](std::size_t k, const char* what) -> std::optional<double> {
      if (!n.has_input(k)) return std::nullopt;
      const tensor_data& d = n.constant(k, what);
      if (d.count() != 1) n.fail("input " + std::to_string(k) + " (" + what + ") must hold one value");
      return d.value(0);
    };
    lo = bound(1, "min");
    hi = bound(2, "max");
  }
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    ir::expr v = x.read(indices(i));
    if (lo) v = ir::max(v, ir::make_constant(*lo));
    if (hi) v = ir::min(v, ir::make_constant(*hi));
    return v;
  });
}

inline converter clip_converter() {
  return {"Clip", 6, {{"min", attr_float}, {"max", attr_float}}, {1, 2}, convert_clip};
}

}  // namespace ein::onnx::operators
