// BatchNormalization in inference, per channel (axis 1), as ops::batch_norm writes it:
//   Y[n, c, ...] = (X[n, c, ...] − mean[c]) · (scale[c] / sqrt(var[c] + epsilon)) + B[c]
#pragma once

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

inline void convert_batch_normalization(node_context& n) {
  if (n.attr_int("training_mode", 0) != 0) n.fail("attribute `training_mode` is 1; ein imports inference");
  if (n.attr_int("spatial", 1) != 1) n.fail("attribute `spatial` is 0 (per-element statistics), which ein does not read");
  expect_outputs(n, 1, "running statistics of training");
  operand x = n.tensor(0, "X");
  expect_rank(n, x, 2, "X");
  const std::int64_t c = x.shape[1];
  const char* names[] = {"scale", "B", "input_mean", "input_var"};
  std::vector<operand> p;
  for (std::size_t k = 1; k <= 4; ++k) {
    p.push_back(n.tensor(k, names[k - 1], true));
    same_type(n, x, p.back());
    if (p.back().shape != std::vector<std::int64_t>{c})
      n.fail("input `" + p.back().name + "` (" + names[k - 1] + ") has shape " + shape_text(p.back().shape) +
             ", not [" + std::to_string(c) + "]");
  }
  const double eps = n.attr_float("epsilon", 1e-5);
  define_elementwise(n, x.shape, x.type, [&](const std::vector<ir::iterator>& i) {
    auto at = [&](const operand& v) { return v.read({ir::idx(i[1].name)}); };
    return (x.read(indices(i)) - at(p[2])) * (at(p[0]) / ir::make_unary(ir::unary_fn::sqrt, at(p[3]) + ir::make_constant(eps))) +
           at(p[1]);
  });
}

/// From opset 7 (no `is_test` or `consumed_inputs`); `momentum` only matters in training.
inline converter batch_normalization_converter() {
  return {"BatchNormalization", 7,
          {{"epsilon", attr_float}, {"momentum", attr_float}, {"spatial", attr_int}, {"training_mode", attr_int}},
          {},
          convert_batch_normalization};
}

}  // namespace ein::onnx::operators
