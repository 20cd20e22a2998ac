// Softmax over an axis (opset 13 on, default the last) or, before opset 13, over every axis from
// `axis` on (default 1: the input read as a matrix), stable as ops::softmax writes it:
//   Y_max = max_j X,  Y_exp = exp(X − Y_max),  Y_sum = Σ_j Y_exp,  Y = Y_exp / Y_sum
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_softmax(node_context& n) {
  operand x = n.tensor(0, "input");
  expect_rank(n, x, 1, "input");
  const bool one_axis = n.opset() >= 13;
  const std::size_t axis = axis_of(n, n.attr_int("axis", one_axis ? -1 : 1), x.rank(), "axis");
  auto all = iterators(x.shape);
  std::vector<ir::iterator> kept, reduced;  // the axes softmax keeps, and those it runs over
  for (std::size_t d = 0; d < x.rank(); ++d)
    (d == axis || (!one_axis && d > axis) ? reduced : kept).push_back(all[d]);
  std::vector<ir::affine> at_kept;
  for (auto& i : kept) at_kept.push_back(ir::idx(i.name));
  auto whole = [&] { return x.read(indices(all)); };
  ir::tensor top = n.define_step("max", ir::make_scope(kept, reduced, whole(), ir::reduction::max), x.type);
  ir::tensor e = n.define_step(
      "exp", ir::make_scope(all, {}, ir::make_unary(ir::unary_fn::exp, whole() - ir::make_access(top, at_kept))), x.type);
  ir::tensor total = n.define_step("sum", ir::make_scope(kept, reduced, ir::make_access(e, indices(all))), x.type);
  n.define(0, ir::make_scope(all, {}, ir::make_access(e, indices(all)) / ir::make_access(total, at_kept)), x.type);
}

inline converter softmax_converter() { return {"Softmax", 1, {{"axis", attr_int}}, {}, convert_softmax}; }

}  // namespace ein::onnx::operators
