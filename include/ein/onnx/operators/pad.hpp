// Pad in `constant` mode: X shifted by the padding before each axis, the value where nothing is
// read (negative pads crop):
//   Y[i...] = X[i − pad...] + value · (1 − ones[i − pad...])
// with ones a tensor of ones over X's shape (the term is left out for the value 0). Pads (and the
// value) are attributes before opset 11, inputs read at import from it on; opset 18's `axes`
// input names the axes the pads are for.
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_pad(node_context& n) {
  operand x = n.tensor(0, "data");
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant") n.fail("attribute `mode` is `" + mode + "`; ein pads with a constant only");
  const bool inputs = n.opset() >= 11;
  std::vector<std::int64_t> pads = inputs ? n.constant_ints(1, "pads") : n.attr_ints("pads");
  double value = inputs ? 0 : n.attr_float("value", 0);
  if (inputs && n.has_input(2)) {
    const tensor_data& v = n.constant(2, "constant_value");
    if (v.count() != 1) n.fail("input 2 (constant_value) must hold one value");
    value = v.value(0);
  }
  std::vector<std::size_t> axes(x.rank());
  for (std::size_t d = 0; d < x.rank(); ++d) axes[d] = d;
  if (inputs && n.has_input(3)) {
    axes.clear();
    for (auto a : n.constant_ints(3, "axes")) axes.push_back(axis_of(n, a, x.rank(), "axes"));
  }
  if (pads.size() != 2 * axes.size())
    n.fail("`pads` has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
  expect_range(n, pads, -max_elements, max_elements, "pads");
  std::vector<std::int64_t> before(x.rank(), 0), shape = x.shape;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    before[axes[k]] += pads[k];
    shape[axes[k]] += pads[k] + pads[k + axes.size()];
  }
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 1) n.fail("axis " + std::to_string(d) + " is padded to extent " + std::to_string(shape[d]));
  define_elementwise(n, shape, x.type, [&](const std::vector<ir::iterator>& i) {
    auto xi = indices(i);
    for (std::size_t d = 0; d < xi.size(); ++d) xi[d] = xi[d] - before[d];
    ir::expr y = x.read(xi);
    if (value == 0) return y;
    auto ones = ir::make_scope(iterators(x.shape, "j"), {}, ir::make_constant(1));
    return y + ir::make_constant(value) * (ir::make_constant(1) - ir::make_access(ones, xi));
  });
}

/// From opset 2 (`pads` an attribute with begin and end per axis).
inline converter pad_converter() {
  return {"Pad", 2, {{"mode", attr_string}, {"pads", attr_ints}, {"value", attr_float}}, {1, 2, 3}, convert_pad};
}

}  // namespace ein::onnx::operators
