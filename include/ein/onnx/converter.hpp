// The entry of one ONNX operator in the importer's table: the attributes it reads (any other is
// refused, naming it), the inputs it reads at import, and the function that writes its IR.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ein/onnx/node.hpp"

namespace ein::onnx {

/// An attribute a converter reads, with the type ONNX gives it.
struct attribute_spec {
  std::string_view name;
  ::onnx::AttributeProto_AttributeType type;
};

inline constexpr auto attr_int = ::onnx::AttributeProto_AttributeType_INT;
inline constexpr auto attr_ints = ::onnx::AttributeProto_AttributeType_INTS;
inline constexpr auto attr_float = ::onnx::AttributeProto_AttributeType_FLOAT;
inline constexpr auto attr_floats = ::onnx::AttributeProto_AttributeType_FLOATS;
inline constexpr auto attr_string = ::onnx::AttributeProto_AttributeType_STRING;
inline constexpr auto attr_tensor = ::onnx::AttributeProto_AttributeType_TENSOR;

/// One operator of the default domain.
struct converter {
  std::string_view op_type;
  std::int64_t since = 1;  // the oldest opset whose definition of the operator it reads
  std::vector<attribute_spec> attributes;
  std::vector<std::size_t> constant_inputs;  // inputs read at import: their values shape the IR
  void (*convert)(node_context&) = nullptr;
};

}  // namespace ein::onnx
