// Reshape, Flatten, Squeeze and Unsqueeze: the same elements in row-major order under other
// extents (indexing.hpp's reshaped, as ops::reshape writes it).
#pragma once

#include <algorithm>

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

/// Defines output 0 as `x` laid out as `shape`.
inline void define_reshape(node_context& n, const operand& x, const std::vector<std::int64_t>& shape) {
  if (elements(shape) != elements(x.shape))
    n.fail("cannot lay out the " + std::to_string(elements(x.shape)) + " elements of shape " + shape_text(x.shape) +
           " as " + shape_text(shape));
  define_elementwise(n, shape, x.type, [&](const std::vector<ir::iterator>& i) {
    return x.read(reshaped(x.shape, shape, indices(i)));
  });
}

/// Reshape (opset 5 on: the shape an input read at import): 0 copies the input's extent (unless
/// allowzero), -1 takes what is left.
inline void convert_reshape(node_context& n) {
  operand x = n.tensor(0, "data");
  auto shape = n.constant_ints(1, "shape");
  const bool allow_zero = n.attr_int("allowzero", 0) != 0;
  std::int64_t known = 1;
  std::size_t infer = shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allow_zero) {
      if (d >= x.rank()) n.fail("shape holds 0 at axis " + std::to_string(d) + ", past the input's rank");
      shape[d] = x.shape[d];
    }
    if (shape[d] == -1) {
      if (infer != shape.size()) n.fail("shape holds -1 twice");
      infer = d;
      continue;
    }
    if (shape[d] < 1 || shape[d] > max_elements)
      n.fail("shape holds " + std::to_string(shape[d]) + "; ein's extents are from 1 to 2^40");
    known = known > max_elements / shape[d] ? max_elements + 1 : known * shape[d];
  }
  if (infer != shape.size()) {
    if (known > elements(x.shape) || elements(x.shape) % known != 0)
      n.fail("shape " + shape_text(shape) + " leaves no whole extent for -1 with " + std::to_string(elements(x.shape)) +
             " elements");
    shape[infer] = elements(x.shape) / known;
  }
  define_reshape(n, x, shape);
}

/// Flatten: (d_0 · ... · d_{axis-1}, d_axis · ... · d_last).
inline void convert_flatten(node_context& n) {
  operand x = n.tensor(0, "input");
  // axis may name the position after the last; a negative one counts from the rank
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::int64_t a = n.attr_int("axis", 1);
  if (a < -rank || a > rank)
    n.fail("attribute `axis` is " + std::to_string(a) + ", outside [" + std::to_string(-rank) + ", " + std::to_string(rank) + "]");
  const auto axis = static_cast<std::size_t>(a < 0 ? a + rank : a);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.shape[d];
  define_reshape(n, x, {outer, inner});
}

/// Squeeze (axes of extent 1 dropped: those listed, or all) and Unsqueeze (axes of extent 1
/// inserted at the output positions listed); axes are an attribute before opset 13, an input
/// read at import from it on.
inline void convert_squeeze(node_context& n) {
  operand x = n.tensor(0, "data");
  const bool unsqueeze = n.node().op_type() == "Unsqueeze";
  std::vector<std::int64_t> axes;
  bool listed = n.opset() < 13 ? n.has("axes") : n.has_input(1);
  if (listed) axes = n.opset() < 13 ? n.attr_ints("axes") : n.constant_ints(1, "axes");
  if (unsqueeze && !listed) n.fail("Unsqueeze needs `axes`");
  const std::size_t rank = unsqueeze ? x.rank() + axes.size() : x.rank();
  std::vector<bool> chosen(rank, false);
  for (auto a : axes) {
    std::size_t d = axis_of(n, a, rank, "axes");
    if (chosen[d]) n.fail("axis " + std::to_string(a) + " is listed twice");
    chosen[d] = true;
  }
  std::vector<std::int64_t> shape;
  if (unsqueeze) {
    for (std::size_t d = 0, k = 0; d < rank; ++d) shape.push_back(chosen[d] ? 1 : x.shape[k++]);
  } else {
    for (std::size_t d = 0; d < x.rank(); ++d) {
      if (listed && chosen[d] && x.shape[d] != 1)
        n.fail("axis " + std::to_string(d) + " has extent " + std::to_string(x.shape[d]) + ", not 1");
      if (!(listed ? chosen[d] : x.shape[d] == 1)) shape.push_back(x.shape[d]);
    }
  }
  define_reshape(n, x, shape);
}

inline std::vector<converter> reshape_converters() {
  return {{"Reshape", 5, {{"allowzero", attr_int}}, {1}, convert_reshape},
          {"Flatten", 1, {{"axis", attr_int}}, {}, convert_flatten},
          {"Squeeze", 1, {{"axes", attr_ints}}, {1}, convert_squeeze},
          {"Unsqueeze", 1, {{"axes", attr_ints}}, {1}, convert_squeeze}};
}

}  // namespace ein::onnx::operators
