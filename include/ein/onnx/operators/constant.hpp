// Constant: a value known at import. Later nodes read it as a constant (a shape, a bound), as a
// literal (one element, broadcast), or as a weight of its output's name, which
// ein::onnx::initializers reads from the file with the initializers.
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_constant(node_context& n) {
  auto d = constant_value(n.node(), "", "");
  if (!d)
    n.fail("sets none of `value`, `value_float`, `value_floats`, `value_int` and `value_ints` (or more than one)");
  n.define_constant(0, std::move(*d));
}

inline converter constant_converter() {
  return {"Constant", 1,
          {{"value", attr_tensor}, {"value_float", attr_float}, {"value_floats", attr_floats}, {"value_int", attr_int},
           {"value_ints", attr_ints}},
          {},
          convert_constant};
}

}  // namespace ein::onnx::operators
