// Concat along an axis: each input read shifted by the extents before it; reads outside an input
// are 0, so the output is the sum of the shifted reads:
//   Y[..., i, ...] = Σ_k X_k[..., i − offset_k, ...]
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_concat(node_context& n) {
  if (!n.has("axis")) n.fail("attribute `axis` is required");
  std::vector<operand> xs;
  for (std::size_t k = 0; k < n.inputs(); ++k) xs.push_back(n.tensor(k, "inputs"));
  if (xs.empty()) n.fail("no inputs");
  expect_rank(n, xs[0], 1, "inputs");
  const std::size_t axis = axis_of(n, n.attr_int("axis", 0), xs[0].rank(), "axis");
  std::vector<std::int64_t> shape = xs[0].shape;
  shape[axis] = 0;
  for (auto& x : xs) {
    same_type(n, xs[0], x);
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (x.rank() != shape.size() || (d != axis && x.shape[d] != shape[d]))
        n.fail("input `" + x.name + "` of shape " + shape_text(x.shape) + " differs from `" + xs[0].name + "`'s " +
               shape_text(xs[0].shape) + " off axis " + std::to_string(axis));
    shape[axis] += x.shape[axis];
  }
  define_elementwise(n, shape, xs[0].type, [&](const std::vector<ir::iterator>& i) {
    ir::expr sum;
    std::int64_t offset = 0;
    for (auto& x : xs) {
      auto xi = indices(i);
      xi[axis] = xi[axis] - offset;
      sum = sum ? sum + x.read(xi) : x.read(xi);
      offset += x.shape[axis];
    }
    return sum;
  });
}

/// From opset 4 (`axis` required).
inline converter concat_converter() { return {"Concat", 4, {{"axis", attr_int}}, {}, convert_concat}; }

}  // namespace ein::onnx::operators
