// Cast and CastLike between the floating-point types ein computes (FLOAT, DOUBLE, FLOAT16,
// BFLOAT16): a copy of each element, rounded to the target type once, to nearest even.
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void cast_to(node_context& n, ir::dtype target) {
  operand x = n.tensor(0, "input", true);
  define_elementwise(n, x.shape, target, [&](const std::vector<ir::iterator>& i) { return x.read(indices(i)); });
}

inline void convert_cast(node_context& n) {
  const std::int64_t to = n.attr_int("to", ::onnx::TensorProto_DataType_UNDEFINED);
  if (!is_float_type(static_cast<int>(to)))
    n.fail("casts to " + type_name(static_cast<int>(to)) + "; ein computes " + float_types);
  cast_to(n, dtype_of(static_cast<int>(to)));
}

inline void convert_cast_like(node_context& n) { cast_to(n, n.element_type(1, "target_type")); }

/// Cast from opset 6 (`to` an integer; a string before), CastLike from 15. `saturate` (opset 19)
/// concerns 8-bit float targets only, which ein refuses, so it is read and has no effect.
inline std::vector<converter> cast_converters() {
  return {{"Cast", 6, {{"to", attr_int}, {"saturate", attr_int}}, {}, convert_cast},
          {"CastLike", 15, {{"saturate", attr_int}}, {}, convert_cast_like}};
}

}  // namespace ein::onnx::operators
