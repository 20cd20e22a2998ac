// Conv: N-d convolution of (N, C, D...) by (M, C/group, K...) with bias, stride, dilation,
// padding and groups:
//   Y[n, f, o...] = Σ_{c, r...} X[n, g·C_g + c, o·stride + r·dilation − pad ...] · W[f, c, r...] (+ B[f])
// with g = ⌊f / M_g⌋ the group of output channel f (C_g = C / group, M_g = M / group). A bias is
// a second step, as ops::conv2d then ops::bias_add write it.
#pragma once

#include <utility>

#include "ein/onnx/operators/window.hpp"

namespace ein::onnx::operators {

/// Defines output 0 as `conv` (over (n, f, o...), m filters), plus the bias B[f] (input 2) as a
/// second step where one is given.
inline void define_convolution(node_context& n, const ir::scope_ptr& conv, const operand& x, std::int64_t m) {
  if (!n.has_input(2)) {
    n.define(0, conv, x.type);
    return;
  }
  operand b = n.tensor(2, "B", true);
  same_type(n, x, b);
  if (b.shape != std::vector<std::int64_t>{m}) n.fail("B has shape " + shape_text(b.shape) + ", not [" + std::to_string(m) + "]");
  ir::tensor t = n.define_step("conv", conv, x.type);
  n.define(0, ir::make_scope(conv->traversal, {}, ir::make_access(t, indices(conv->traversal)) + b.read({ir::idx("f")})),
           x.type);
}

/// X (input 0) and W (input 1) of a convolution, checked: one element type, X of rank 3 or more
/// (N, C and a spatial dimension), W of X's rank.
inline std::pair<operand, operand> convolution_operands(node_context& n) {
  operand x = n.tensor(0, "X"), w = n.tensor(1, "W");
  same_type(n, x, w);
  expect_rank(n, x, 3, "X");
  if (w.rank() != x.rank())
    n.fail("W of shape " + shape_text(w.shape) + " and X of shape " + shape_text(x.shape) + " differ in rank");
  return {x, w};
}

inline void convert_conv(node_context& n) {
  auto [x, w] = convolution_operands(n);
  const std::int64_t group = n.attr_int("group", 1), c = x.shape[1], m = w.shape[0];
  if (group < 1 || c % group != 0 || m % group != 0)
    n.fail("attribute `group` is " + std::to_string(group) + ", which divides neither X's " + std::to_string(c) +
           " channels nor W's " + std::to_string(m) + " filters");
  const std::int64_t cg = c / group, mg = m / group;
  if (w.shape[1] != cg)
    n.fail("W has " + std::to_string(w.shape[1]) + " channels per filter but X's " + std::to_string(c) + " in " +
           std::to_string(group) + " groups give " + std::to_string(cg));
  std::vector<std::int64_t> in(x.shape.begin() + 2, x.shape.end()), kernel(w.shape.begin() + 2, w.shape.end());
  if (n.has("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    n.fail("attribute `kernel_shape` " + shape_text(n.attr_ints("kernel_shape")) + " differs from W's " +
           shape_text(kernel));
  auto axes = window(n, in, kernel);
  auto o = output_iterators(axes), r = kernel_iterators(axes);
  std::vector<ir::iterator> traversal{{"n", 0, x.shape[0]}, {"f", 0, m}};
  traversal.insert(traversal.end(), o.begin(), o.end());
  std::vector<ir::iterator> summation;
  // the channel X reads: c within f's group (depthwise: f's own channel, no sum over c)
  ir::affine channel = group == 1 ? ir::idx("c") : ir::idx("f").floordiv(mg) * cg;
  if (cg > 1 && group > 1) channel = channel + ir::idx("c");
  if (cg > 1 || group == 1) summation.push_back({"c", 0, cg});
  summation.insert(summation.end(), r.begin(), r.end());
  std::vector<ir::affine> xi{ir::idx("n"), channel}, wi{ir::idx("f"), cg > 1 || group == 1 ? ir::idx("c") : ir::affine(0)};
  for (auto& e : window_index(axes, o, r)) xi.push_back(e);
  for (auto& e : r) wi.push_back(ir::idx(e.name));
  define_convolution(n, ir::make_scope(traversal, summation, x.read(xi) * w.read(wi)), x, m);
}

inline converter conv_converter() {
  return {"Conv", 1,
          {{"auto_pad", attr_string}, {"dilations", attr_ints}, {"group", attr_int}, {"kernel_shape", attr_ints},
           {"pads", attr_ints}, {"strides", attr_ints}},
          {},
          convert_conv};
}

}  // namespace ein::onnx::operators
