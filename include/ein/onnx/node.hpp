// What a converter sees of one ONNX node: its attributes (checked against the converter's table
// before it runs), its inputs as IR operands or as values known at import, and the definitions it
// adds for its outputs. Errors name the file, the node (name and index) and its op type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/onnx/tensor_data.hpp"

namespace ein::onnx {

/// The ONNX element types ein computes, as errors list them.
inline constexpr const char* float_types = "FLOAT, DOUBLE, FLOAT16 and BFLOAT16";

/// ein's element type for ONNX floating-point type `t` (one `is_float_type` accepts).
inline ir::dtype dtype_of(int t) {
  switch (t) {
    case ::onnx::TensorProto_DataType_DOUBLE: return ir::dtype::f64;
    case ::onnx::TensorProto_DataType_FLOAT16: return ir::dtype::f16;
    case ::onnx::TensorProto_DataType_BFLOAT16: return ir::dtype::bf16;
    default: return ir::dtype::f32;
  }
}

/// ONNX's element type for ein's `t`.
inline int onnx_type_of(ir::dtype t) {
  switch (t) {
    case ir::dtype::f64: return ::onnx::TensorProto_DataType_DOUBLE;
    case ir::dtype::f16: return ::onnx::TensorProto_DataType_FLOAT16;
    case ir::dtype::bf16: return ::onnx::TensorProto_DataType_BFLOAT16;
    default: return ::onnx::TensorProto_DataType_FLOAT;
  }
}

/// An input of a node as the IR reads it: a tensor (a graph input, a weight from an initializer
/// or a Constant, an earlier node's definition) or a literal (a value of one element known at
/// import), with its element type and shape.
struct operand {
  std::string name;  // the ONNX value's name
  ir::dtype type = ir::dtype::f32;
  std::vector<std::int64_t> shape;
  std::optional<ir::tensor> tensor;  // absent: the literal
  double literal = 0;

  std::size_t rank() const { return shape.size(); }
  /// `name[index...]`, or the literal.
  ir::expr read(std::vector<ir::affine> index) const {
    return tensor ? ir::make_access(*tensor, std::move(index)) : ir::make_constant(literal);
  }
};

class graph_importer;

/// One node being converted.
class node_context {
 public:
  node_context(graph_importer& g, const ::onnx::NodeProto& node, std::size_t index, std::int64_t opset)
      : g_(g), node_(node), index_(index), opset_(opset) {}

  const ::onnx::NodeProto& node() const { return node_; }
  /// The version of the default domain's opset the model imports.
  std::int64_t opset() const { return opset_; }
  /// `node `conv1` (#3, Conv)`: how errors name this node.
  std::string where() const {
    return "node `" + node_.name() + "` (#" + std::to_string(index_) + ", " + node_.op_type() + ")";
  }
  /// Refuses the node: a user_error naming the file, the node and `why`.
  [[noreturn]] void fail(const std::string& why) const;

  // ---- attributes (their names and types are checked against the converter's table) ----
  bool has(const std::string& name) const { return find(name) != nullptr; }
  std::int64_t attr_int(const std::string& name, std::int64_t otherwise) const {
    auto* a = find(name);
    return a ? a->i() : otherwise;
  }
  double attr_float(const std::string& name, double otherwise) const {
    auto* a = find(name);
    return a ? a->f() : otherwise;
  }
  std::string attr_string(const std::string& name, const std::string& otherwise) const {
    auto* a = find(name);
    return a ? a->s() : otherwise;
  }
  std::vector<std::int64_t> attr_ints(const std::string& name, std::vector<std::int64_t> otherwise = {}) const {
    auto* a = find(name);
    return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : otherwise;
  }
  std::vector<double> attr_floats(const std::string& name) const {
    auto* a = find(name);
    return a ? std::vector<double>(a->floats().begin(), a->floats().end()) : std::vector<double>{};
  }
  const ::onnx::AttributeProto* find(const std::string& name) const {
    for (auto& a : node_.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }

  // ---- inputs ----
  /// Whether input `k` is given (present with a name: ONNX leaves optional inputs empty).
  bool has_input(std::size_t k) const {
    return k < static_cast<std::size_t>(node_.input_size()) && !node_.input(static_cast<int>(k)).empty();
  }
  /// The number of inputs, trailing empty ones left out.
  std::size_t inputs() const {
    std::size_t n = static_cast<std::size_t>(node_.input_size());
    while (n > 0 && node_.input(static_cast<int>(n - 1)).empty()) --n;
    return n;
  }
  /// Input `k` (`what` names its role in errors: `X`, `W`, ...) as an operand of the IR. With
  /// `literal`, a value of one element known at import becomes a literal, which reads the same
  /// at every index: for converters that read it broadcast only, never outside its box.
  operand tensor(std::size_t k, const std::string& what, bool literal = false);
  /// Input `k`'s values, which must be known at import (an initializer, a Constant's output, or a
  /// graph input given a value).
  const tensor_data& constant(std::size_t k, const std::string& what);
  /// Input `k`'s element type, one ein computes, without making its values part of the program
  /// (CastLike's `target_type`, whose values nothing reads).
  ir::dtype element_type(std::size_t k, const std::string& what);
  /// Input `k`'s values as whole numbers (axes, shapes, pads).
  std::vector<std::int64_t> constant_ints(std::size_t k, const std::string& what);

  // ---- outputs ----
  std::size_t outputs() const { return static_cast<std::size_t>(node_.output_size()); }
  /// Defines output `k` as `value`; returns the tensor later nodes read.
  ir::tensor define(std::size_t k, ir::scope_ptr value, ir::dtype type);
  /// Defines a step of this node's own (`<output 0>_<suffix>`, made unique) that the node's
  /// outputs read. A step of a 16-bit node holds float (ir::held_type), so that the node rounds
  /// once, when its output is stored, as ONNX Runtime's and PyTorch's 16-bit kernels do.
  ir::tensor define_step(const std::string& suffix, ir::scope_ptr value, ir::dtype type);
  /// Defines output `k` as values known at import (a Constant's): later nodes read them as
  /// constants, or as a weight of that name.
  void define_constant(std::size_t k, tensor_data d);

 private:
  graph_importer& g_;
  const ::onnx::NodeProto& node_;
  std::size_t index_;
  std::int64_t opset_;
};

}  // namespace ein::onnx
