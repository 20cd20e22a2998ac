// AveragePool: the mean of each window over the points counted, which with count_include_pad are
// those inside X and its padding, else those inside X:
//   Y[n, c, o...] = Σ_{r...} X[n, c, o·stride + r·dilation − pad ...] / count[o...]
// count is the window's size where it is the same for every window (as ops::avg_pool2d writes
// it), else a step of its own: Σ_r of a tensor of ones over the counted rows, read as X is.
#pragma once

#include "ein/onnx/operators/window.hpp"

namespace ein::onnx::operators {

inline void convert_average_pool(node_context& n) {
  operand x = n.tensor(0, "X");
  auto axes = pool_window(n, x);
  const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
  auto o = output_iterators(axes), r = kernel_iterators(axes);
  std::vector<ir::iterator> traversal{{"n", 0, x.shape[0]}, {"c", 0, x.shape[1]}};
  traversal.insert(traversal.end(), o.begin(), o.end());
  std::vector<ir::affine> xi{ir::idx("n"), ir::idx("c")};
  auto spatial = window_index(axes, o, r);
  for (auto& e : spatial) xi.push_back(e);
  // Every window counts all its points where none reaches past what is counted.
  bool uniform = true;
  double size = 1;
  for (auto& a : axes) {
    std::int64_t last = (a.out - 1) * a.stride + a.span() - 1 - a.pad;  // the last row the last window reads
    uniform = uniform && (include_pad || (a.pad == 0 && a.pad_end == 0)) && last <= a.in - 1 + a.pad_end;
    size *= static_cast<double>(a.kernel);
  }
  if (uniform) {
    n.define(0, ir::make_scope(traversal, r, x.read(xi) / ir::make_constant(size)), x.type);
    return;
  }
  // count[o...] = Σ_r Π_d ones_d[row], ones_d a tensor of ones over the rows counted
  ir::expr ones_product;
  for (std::size_t d = 0; d < axes.size(); ++d) {
    std::int64_t rows = include_pad ? axes[d].in + axes[d].pad + axes[d].pad_end : axes[d].in;
    auto ones = ir::make_scope({{"j", 0, rows}}, {}, ir::make_constant(1));
    ir::expr one = ir::make_access(ones, {include_pad ? spatial[d] + axes[d].pad : spatial[d]});
    ones_product = ones_product ? ones_product * one : one;
  }
  ir::tensor count = n.define_step("count", ir::make_scope(o, r, ones_product), x.type);
  std::vector<ir::affine> at;
  for (auto& e : o) at.push_back(ir::idx(e.name));
  n.define(0, ir::make_scope(traversal, r, x.read(xi) / ir::make_access(count, at)), x.type);
}

inline converter average_pool_converter() {
  return {"AveragePool", 7,
          {{"auto_pad", attr_string}, {"ceil_mode", attr_int}, {"count_include_pad", attr_int},
           {"dilations", attr_ints}, {"kernel_shape", attr_ints}, {"pads", attr_ints}, {"strides", attr_ints}},
          {},
          convert_average_pool};
}

}  // namespace ein::onnx::operators
