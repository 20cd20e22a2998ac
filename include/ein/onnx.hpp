// ein::onnx::initializers: the weights of an ONNX file, read with protobuf, bound by name to a
// program imported from it (ein_generate(... ONNX file.onnx ...)):
//
//     #include "ein_generated/resnet18.hpp"
//     #include <ein/onnx.hpp>
//     auto net = ein::prepare(ein_generated::resnet18::net, ein::onnx::initializers("resnet18.onnx"));
//     net.run({{"input", x}, {"output", y}});
//
// Not part of ein.hpp: it includes protobuf and ONNX's compiled onnx.proto, and a program that
// includes it links ein::onnx (a target ein_generate's ONNX plans bring).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ein/ein.hpp"
#include "ein/onnx/model_file.hpp"
#include "ein/onnx/tensor_data.hpp"

namespace ein::onnx {

/// The floating-point tensors (float, double, float16, bfloat16) an ONNX file stores: its initializers and the values of its
/// Constant nodes (named by their outputs), read in the file or in its external-data files. It
/// owns their storage; the bindings it gives point into it.
class initializers {
 public:
  /// Reads ONNX file `path`.
  /// @throws user_error when the file cannot be read, or a tensor's data is missing or of a size
  /// its dims disagree with.
  explicit initializers(const std::string& path) : path_(path) {
    const ::onnx::ModelProto m = read_model(path);
    const std::string folder = folder_of(path);
    auto keep = [&](tensor_data d) {
      if (d.is_float()) tensors_.push_back(std::move(d));
    };
    for (auto& t : m.graph().initializer()) {
      const std::string where = "ONNX file " + path + ": initializer `" + t.name() + "`";
      // integer initializers (shapes, axes) are read at import, never bound
      if (is_float_type(t.data_type())) keep(read_values(t, folder, where));
    }
    for (auto& node : m.graph().node())
      if (node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx"))
        if (auto d = constant_value(node, folder, "ONNX file " + path + ": Constant `" + node.name() + "`")) keep(*d);
  }

  const std::string& file() const { return path_; }
  const std::vector<tensor_data>& tensors() const { return tensors_; }
  const tensor_data* find(std::string_view name) const {
    for (auto& t : tensors_)
      if (t.name == name) return &t;
    return nullptr;
  }

  /// The bindings of the tensors named `names` (an imported program's weights), each with its
  /// shape, so that a plan checks it; errors name `caller`.
  /// @throws user_error naming a weight the file does not hold as a floating-point tensor.
  template <class Names>
  runtime::bindings bindings_of(const Names& names, std::string_view caller) const {
    std::vector<runtime::binding> items;
    for (std::string_view name : names) {
      const tensor_data* t = find(name);
      if (!t)
        throw user_error(std::string(caller) + ": weight `" + std::string(name) + "` is no floating-point " +
                         "initializer or Constant of ONNX file " + path_);
      items.push_back(bound(*t));
    }
    return runtime::bindings(std::move(items), caller);
  }

  /// Every tensor, bound by name (for a program that reads them all).
  operator runtime::bindings() const {
    std::vector<runtime::binding> items;
    for (auto& t : tensors_) items.push_back(bound(t));
    return runtime::bindings(std::move(items), "ein::prepare");
  }

 private:
  static runtime::binding bound(const tensor_data& t) {
    runtime::binding b = t.type == ::onnx::TensorProto_DataType_FLOAT16    ? runtime::binding(t.name, t.f16)
                         : t.type == ::onnx::TensorProto_DataType_BFLOAT16 ? runtime::binding(t.name, t.bf16)
                         : t.type == ::onnx::TensorProto_DataType_DOUBLE   ? runtime::binding(t.name, t.f64)
                                                                           : runtime::binding(t.name, t.f32);
    if (t.dims.size() <= runtime::binding::max_rank) {
      b.rank = t.dims.size();
      for (std::size_t d = 0; d < t.dims.size(); ++d) b.shape[d] = t.dims[d];
    }
    return b;
  }

  std::string path_;
  std::vector<tensor_data> tensors_;
};

}  // namespace ein::onnx

namespace ein {

/// An imported program: one whose generated header lists its weights.
template <class Program>
concept imported_program = requires { Program::weights; };

/// ein::prepare with the weights of an ONNX file: binds the program's weights by name.
/// @throws user_error naming a weight missing from the file, or one of another shape or type.
template <imported_program Program>
auto prepare(const Program& program, const onnx::initializers& weights, runtime::stream s = nullptr) {
  return ein::prepare(program, weights.bindings_of(Program::weights, "ein::prepare"), s);
}

/// ein::run with the weights of an ONNX file and the inputs and outputs bound in `io`.
template <imported_program Program>
void run(const Program& program, const onnx::initializers& weights, std::initializer_list<runtime::binding> io,
         runtime::stream s = nullptr) {
  std::vector<runtime::binding> items(io);
  const runtime::bindings bound = weights.bindings_of(Program::weights, "ein::run");
  items.insert(items.end(), bound.items().begin(), bound.items().end());
  ein::run(program, runtime::bindings(std::move(items)), s);
}

}  // namespace ein
