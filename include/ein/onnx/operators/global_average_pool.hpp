// GlobalAveragePool: the mean over every spatial axis, which keep extent 1:
//   Y[n, c, 0...] = Σ_{s...} X[n, c, s...] / Π S
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_global_average_pool(node_context& n) {
  operand x = n.tensor(0, "X");
  expect_rank(n, x, 3, "X");
  std::vector<ir::iterator> traversal{{"n", 0, x.shape[0]}, {"c", 0, x.shape[1]}}, summation;
  std::vector<ir::affine> xi{ir::idx("n"), ir::idx("c")};
  double size = 1;
  for (std::size_t d = 2; d < x.rank(); ++d) {
    std::string s = "s" + std::to_string(d - 2);
    traversal.push_back({"o" + std::to_string(d - 2), 0, 1});
    summation.push_back({s, 0, x.shape[d]});
    xi.push_back(ir::idx(s));
    size *= static_cast<double>(x.shape[d]);
  }
  n.define(0, ir::make_scope(traversal, summation, x.read(xi) / ir::make_constant(size)), x.type);
}

inline converter global_average_pool_converter() {
  return {"GlobalAveragePool", 1, {}, {}, convert_global_average_pool};
}

}  // namespace ein::onnx::operators
