// MaxPool: the largest element of each window, padding left out (the IR's max reduction leaves
// out points that read outside X, docs/decisions/0008):
//   Y[n, c, o...] = max_{r...} X[n, c, o·stride + r·dilation − pad ...]
#pragma once

#include "ein/onnx/operators/window.hpp"

namespace ein::onnx::operators {

inline void convert_max_pool(node_context& n) {
  operand x = n.tensor(0, "X");
  expect_outputs(n, 1, "Indices");
  auto axes = pool_window(n, x);
  auto o = output_iterators(axes), r = kernel_iterators(axes);
  std::vector<ir::iterator> traversal{{"n", 0, x.shape[0]}, {"c", 0, x.shape[1]}};
  traversal.insert(traversal.end(), o.begin(), o.end());
  std::vector<ir::affine> xi{ir::idx("n"), ir::idx("c")};
  for (auto& e : window_index(axes, o, r)) xi.push_back(e);
  n.define(0, ir::make_scope(traversal, r, x.read(xi), ir::reduction::max), x.type);
}

/// storage_order only orders the Indices output, which ein refuses.
inline converter max_pool_converter() {
  return {"MaxPool", 1,
          {{"auto_pad", attr_string}, {"ceil_mode", attr_int}, {"dilations", attr_ints}, {"kernel_shape", attr_ints},
           {"pads", attr_ints}, {"storage_order", attr_int}, {"strides", attr_ints}},
          {},
          convert_max_pool};
}

}  // namespace ein::onnx::operators
