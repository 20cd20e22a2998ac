// ConvTranspose: the gradient of Conv with respect to its input. X (N, C, D...), W (C, M/group,
// K...): output element o + pad = i·stride + r·dilation gathers X[i]·W[r]:
//   Y[n, f, o...] = Σ_{c, r...} X[n, g·C_g + c, (o + pad − r·dilation) / stride ...] · W[g·C_g + c, f mod M_g, r...]
// over the r whose quotient is exact. Without dilation the quotient is made exact as
// ops::conv_transpose2d does, r = stride·u + (o + pad) mod stride; with dilation and stride,
// X is read through a view with an axis of extent 1 after each spatial one, at
// [⌊(o + pad − r·dilation) / stride⌋, (o + pad − r·dilation) mod stride]: a remainder other than
// 0 reads outside the view, which is 0.
#pragma once

#include "ein/onnx/operators/conv.hpp"

namespace ein::onnx::operators {

namespace detail {

// The geometry of each spatial axis: output extent and padding before, from output_shape,
// auto_pad or pads (ONNX's ConvTranspose rules).
inline std::vector<window_axis> transposed_window(const node_context& n, const std::vector<std::int64_t>& in,
                                                  const std::vector<std::int64_t>& kernel) {
  const std::size_t rank = in.size();
  constexpr std::int64_t big = std::int64_t{1} << 40;
  const window_attributes attrs = read_window(n, rank);
  const std::string& auto_pad = attrs.auto_pad;
  const auto& pads = attrs.pads;
  const auto out_pad = per_axis(n, "output_padding", 0, 0, rank);
  std::vector<std::int64_t> out_shape;
  if (n.has("output_shape")) {
    out_shape = n.attr_ints("output_shape");
    if (out_shape.size() == rank + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != rank)
      n.fail("attribute `output_shape` has " + std::to_string(out_shape.size()) + " values for " +
             std::to_string(rank) + " spatial axes");
    expect_range(n, out_shape, 1, big, "output_shape");
  }
  std::vector<window_axis> axes = window_axes(n, in, kernel, attrs);
  for (std::size_t d = 0; d < rank; ++d) {
    window_axis& w = axes[d];
    if (w.in - 1 > big / w.stride) n.fail("spatial axis " + std::to_string(d) + " at its stride spans more than 2^40");
    std::int64_t full = w.stride * (w.in - 1) + out_pad[d] + w.span();  // the output with no padding
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out = out_shape.empty() ? w.in * w.stride : out_shape[d];
      // ONNX's rule, in floor division: an output larger than the full one pads after
      std::int64_t total = full - w.out, half = ir::floor_div(total, 2);
      w.pad = auto_pad == "SAME_UPPER" ? half : total - half;
    } else {
      if (auto_pad == "NOTSET") w.pad = pads[d], w.pad_end = pads[d + rank];
      w.out = full - w.pad - w.pad_end;
    }
    if (w.out < 1 || w.out > big)
      n.fail("spatial axis " + std::to_string(d) + " has output extent " + std::to_string(w.out));
  }
  return axes;
}

}  // namespace detail

inline void convert_conv_transpose(node_context& n) {
  auto [x, w] = convolution_operands(n);
  const std::int64_t group = n.attr_int("group", 1), c = x.shape[1];
  if (group < 1 || c % group != 0) n.fail("attribute `group` is " + std::to_string(group) + ", which does not divide X's " + std::to_string(c) + " channels");
  if (w.shape[0] != c) n.fail("W has " + std::to_string(w.shape[0]) + " input channels but X has " + std::to_string(c));
  const std::int64_t cg = c / group, mg = w.shape[1];
  if (mg > max_elements / group) n.fail("W's " + std::to_string(mg) + " filters in " + std::to_string(group) + " groups are more than 2^40");
  const std::int64_t m = mg * group;
  std::vector<std::int64_t> in(x.shape.begin() + 2, x.shape.end()), kernel(w.shape.begin() + 2, w.shape.end());
  if (n.has("kernel_shape") && n.attr_ints("kernel_shape") != kernel)
    n.fail("attribute `kernel_shape` " + shape_text(n.attr_ints("kernel_shape")) + " differs from W's " + shape_text(kernel));
  auto axes = detail::transposed_window(n, in, kernel);
  const std::size_t rank = axes.size();
  std::vector<ir::iterator> traversal{{"n", 0, x.shape[0]}, {"f", 0, m}};
  for (std::size_t d = 0; d < rank; ++d) traversal.push_back({"o" + std::to_string(d), 0, axes[d].out});
  // X's view: an axis of extent 1 after each spatial axis that has both stride and dilation
  auto viewed = [&](std::size_t d) { return axes[d].stride > 1 && axes[d].dilation > 1; };
  std::vector<ir::iterator> view_its{{"n", 0, x.shape[0]}, {"c", 0, c}};
  std::vector<ir::affine> view_read{ir::idx("n"), ir::idx("c")};
  bool any_view = false;
  for (std::size_t d = 0; d < rank; ++d) {
    std::string i = "i" + std::to_string(d);
    view_its.push_back({i, 0, axes[d].in});
    view_read.push_back(ir::idx(i));
    if (viewed(d)) view_its.push_back({"m" + std::to_string(d), 0, 1}), any_view = true;
  }
  ir::scope_ptr view = any_view ? ir::make_scope(view_its, {}, x.read(view_read)) : nullptr;
  const ir::affine group_base = ir::idx("f").floordiv(mg) * cg;
  ir::affine channel = group == 1 ? ir::idx("c") : group_base + (cg > 1 ? ir::idx("c") : ir::affine(0));
  std::vector<ir::iterator> summation;
  if (cg > 1 || group == 1) summation.push_back({"c", 0, cg});
  std::vector<ir::affine> xi{ir::idx("n"), channel}, wi{channel, group == 1 ? ir::idx("f") : ir::idx("f").mod(mg)};
  for (std::size_t d = 0; d < rank; ++d) {
    const window_axis& a = axes[d];
    ir::affine at = ir::idx("o" + std::to_string(d)) + a.pad;  // o + pad
    std::string r = "r" + std::to_string(d);
    if (a.stride == 1) {  // i = o + pad − r·dilation
      summation.push_back({r, 0, a.kernel});
      xi.push_back(at - ir::idx(r) * a.dilation);
      wi.push_back(ir::idx(r));
    } else if (a.dilation == 1) {  // r = stride·u + (o + pad) mod stride, i = ⌊(o + pad) / stride⌋ − u
      std::string u = "u" + std::to_string(d);
      summation.push_back({u, 0, (a.kernel + a.stride - 1) / a.stride});
      xi.push_back(at.floordiv(a.stride) - ir::idx(u));
      wi.push_back(ir::idx(u) * a.stride + at.mod(a.stride));
    } else {
      summation.push_back({r, 0, a.kernel});
      ir::affine q = at - ir::idx(r) * a.dilation;
      xi.push_back(q.floordiv(a.stride));
      xi.push_back(q.mod(a.stride));
      wi.push_back(ir::idx(r));
    }
  }
  // X is read as it is where no axis needs the view (its index then has no remainder terms)
  ir::expr xr = view ? ir::make_access(view, xi) : x.read(xi);
  define_convolution(n, ir::make_scope(traversal, summation, xr * w.read(wi)), x, m);
}

inline converter conv_transpose_converter() {
  return {"ConvTranspose", 1,
          {{"auto_pad", attr_string}, {"dilations", attr_ints}, {"group", attr_int}, {"kernel_shape", attr_ints},
           {"output_padding", attr_ints}, {"output_shape", attr_ints}, {"pads", attr_ints}, {"strides", attr_ints}},
          {},
          convert_conv_transpose};
}

}  // namespace ein::onnx::operators
