// Transpose: Y[i_0, ..., i_last] = X at i_k on axis perm[k] (default: the axes reversed).
#pragma once

#include <algorithm>
#include <numeric>

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_transpose(node_context& n) {
  operand x = n.tensor(0, "data");
  std::vector<std::int64_t> perm(x.rank());
  std::iota(perm.rbegin(), perm.rend(), 0);
  if (n.has("perm")) perm = n.attr_ints("perm");
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t d = 0; d < sorted.size(); ++d)
    if (sorted.size() != x.rank() || sorted[d] != static_cast<std::int64_t>(d))
      n.fail("attribute `perm` " + shape_text(perm) + " is no permutation of the " + std::to_string(x.rank()) +
             " axes");
  std::vector<std::int64_t> shape;
  for (auto p : perm) shape.push_back(x.shape[static_cast<std::size_t>(p)]);
  define_elementwise(n, shape, x.type, [&](const std::vector<ir::iterator>& i) {
    std::vector<ir::affine> xi(x.rank());
    for (std::size_t k = 0; k < perm.size(); ++k) xi[static_cast<std::size_t>(perm[k])] = ir::idx(i[k].name);
    return x.read(xi);
  });
}

inline converter transpose_converter() { return {"Transpose", 1, {{"perm", attr_ints}}, {}, convert_transpose}; }

}  // namespace ein::onnx::operators
