// The ONNX importer (stage 1): an ONNX file in, the IR program of its graph out, every node
// converted by the converter of its op type (operators/all.hpp) or refused with an error naming
// the node, its op type and what is not supported. Layouts stay as the file writes them (NCHW);
// the search lays intermediates out otherwise where that is cheaper.
#pragma once

#include <set>
#include <string>

#include "ein/ir/expr.hpp"
#include "ein/onnx/graph.hpp"
#include "ein/onnx/model_file.hpp"
#include "ein/onnx/operators/all.hpp"

namespace ein::onnx {

/// The program of model `m` (read from `file`, which errors name and beside which external data
/// is looked up): graph inputs are the program's inputs, initializers and Constant values read as
/// tensors its weights, node outputs its definitions, graph outputs its outputs; tensors keep
/// their ONNX names.
/// @throws user_error naming the file, and the node (name, index, op type) where one is at fault.
inline ir::program import_model(const ::onnx::ModelProto& m, const std::string& file, import_options o = {}) {
  return graph_importer(m, file, std::move(o)).import(operators::all());
}

/// The program of ONNX file `path`.
inline ir::program import_file(const std::string& path, import_options o = {}) {
  return import_model(read_model(path), path, std::move(o));
}

/// The graph inputs of `m` that its nodes read at import (a Reshape's shape, a Clip's bounds):
/// what a caller gives values for in import_options::constants.
inline std::set<std::string> constant_inputs(const ::onnx::ModelProto& m) {
  std::set<std::string> graph_inputs, out;
  for (auto& in : m.graph().input()) graph_inputs.insert(in.name());
  for (auto& node : m.graph().node())
    for (auto& c : operators::all())
      if (c.op_type == node.op_type())
        for (auto k : c.constant_inputs)
          if (k < static_cast<std::size_t>(node.input_size()) && graph_inputs.count(node.input(static_cast<int>(k))))
            out.insert(node.input(static_cast<int>(k)));
  return out;
}

}  // namespace ein::onnx
