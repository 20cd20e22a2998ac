// The geometry of a sliding window along each spatial axis (Conv, MaxPool, AveragePool): kernel,
// stride, dilation, padding before and after (pads, or auto_pad), and the output extent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

/// One spatial axis: output element o reads input rows o·stride + r·dilation − pad, r in
/// [0, kernel).
struct window_axis {
  std::int64_t in = 1, kernel = 1, stride = 1, dilation = 1, pad = 0, pad_end = 0, out = 1;
  std::int64_t span() const { return (kernel - 1) * dilation + 1; }
};

/// Checks that a window's span fits in 2^40 (kernel and dilation are each at most 2^40).
inline void expect_span(const node_context& n, const window_axis& w) {
  if (w.kernel > 1 && w.dilation > (std::int64_t{1} << 40) / (w.kernel - 1))
    n.fail("a window of " + std::to_string(w.kernel) + " taps at dilation " + std::to_string(w.dilation) +
           " spans more than 2^40");
}

/// The attributes every window reads, one value per spatial axis (pads: begin then end).
struct window_attributes {
  std::vector<std::int64_t> strides, dilations, pads;
  std::string auto_pad;
};

/// Reads `name` (one value per axis, `count` of them, `otherwise` where absent, each at least `lo`).
inline std::vector<std::int64_t> per_axis(const node_context& n, const char* name, std::int64_t otherwise,
                                          std::int64_t lo, std::size_t count) {
  auto v = n.attr_ints(name, std::vector<std::int64_t>(count, otherwise));
  if (v.size() != count)
    n.fail("attribute `" + std::string(name) + "` has " + std::to_string(v.size()) + " values where " +
           std::to_string(count) + " are needed");
  expect_range(n, v, lo, std::int64_t{1} << 40, name);
  return v;
}

/// strides, dilations, pads and auto_pad for `rank` spatial axes.
inline window_attributes read_window(const node_context& n, std::size_t rank) {
  window_attributes a{per_axis(n, "strides", 1, 1, rank), per_axis(n, "dilations", 1, 1, rank),
                      per_axis(n, "pads", 0, 0, 2 * rank), n.attr_string("auto_pad", "NOTSET")};
  if (a.auto_pad != "NOTSET" && a.auto_pad != "VALID" && a.auto_pad != "SAME_UPPER" && a.auto_pad != "SAME_LOWER")
    n.fail("attribute `auto_pad` is `" + a.auto_pad + "`, not NOTSET, VALID, SAME_UPPER or SAME_LOWER");
  return a;
}

/// The axes of a window over the spatial extents `in` with kernel extents `kernel`: their stride
/// and dilation from `a` (the caller sets padding and output extents).
inline std::vector<window_axis> window_axes(const node_context& n, const std::vector<std::int64_t>& in,
                                            const std::vector<std::int64_t>& kernel, const window_attributes& a) {
  std::vector<window_axis> axes(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    axes[d] = {in[d], kernel[d], a.strides[d], a.dilations[d]};
    expect_span(n, axes[d]);
  }
  return axes;
}

/// The window of `n` over the spatial extents `in` with kernel extents `kernel` (from the
/// weights, or `kernel_shape`), reading strides, dilations, pads, auto_pad and, for pooling,
/// ceil_mode: the output extent is ⌊(in + pads − span) / stride⌋ + 1, or ⌈...⌉ + 1 with
/// ceil_mode, less a last window that would start in the padding after (PyTorch's rule, ONNX
/// Runtime's).
inline std::vector<window_axis> window(const node_context& n, const std::vector<std::int64_t>& in,
                                       const std::vector<std::int64_t>& kernel) {
  const std::size_t rank = in.size();
  expect_range(n, kernel, 1, std::int64_t{1} << 40, "kernel_shape");
  const window_attributes attrs = read_window(n, rank);
  const std::string& auto_pad = attrs.auto_pad;
  const auto& pads = attrs.pads;
  if (auto_pad != "NOTSET" && n.has("pads")) n.fail("attributes `auto_pad` " + auto_pad + " and `pads` are both given");
  const bool ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  std::vector<window_axis> axes = window_axes(n, in, kernel, attrs);
  for (std::size_t d = 0; d < rank; ++d) {
    window_axis& w = axes[d];
    if (auto_pad == "NOTSET") {
      w.pad = pads[d];
      w.pad_end = pads[d + rank];
    } else if (auto_pad != "VALID") {
      std::int64_t out = (w.in + w.stride - 1) / w.stride;
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * w.stride + w.span() - w.in);
      w.pad = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end = total - w.pad;
    }
    std::int64_t room = w.in + w.pad + w.pad_end - w.span();
    if (room < 0)
      n.fail("the window (" + std::to_string(w.span()) + " wide with dilation) is wider than spatial axis " +
             std::to_string(d) + " with its padding (" + std::to_string(w.in + w.pad + w.pad_end) + ")");
    w.out = (ceil_mode ? (room + w.stride - 1) / w.stride : room / w.stride) + 1;
    if (ceil_mode && (w.out - 1) * w.stride >= w.in + w.pad) --w.out;
  }
  return axes;
}

/// The window of a pooling over X (N, C, D...): its `kernel_shape` (required) over X's spatial axes.
inline std::vector<window_axis> pool_window(const node_context& n, const operand& x) {
  expect_rank(n, x, 3, "X");
  if (!n.has("kernel_shape")) n.fail("attribute `kernel_shape` is required");
  std::vector<std::int64_t> in(x.shape.begin() + 2, x.shape.end());
  auto kernel = n.attr_ints("kernel_shape");
  if (kernel.size() != in.size())
    n.fail("attribute `kernel_shape` has " + std::to_string(kernel.size()) + " values for " + std::to_string(in.size()) +
           " spatial axes");
  return window(n, in, kernel);
}

/// The spatial part of an input's index: o·stride + r·dilation − pad for each axis, with the
/// output iterators `o` and the kernel iterators `r` of the axes.
inline std::vector<ir::affine> window_index(const std::vector<window_axis>& axes, const std::vector<ir::iterator>& o,
                                            const std::vector<ir::iterator>& r) {
  std::vector<ir::affine> v;
  for (std::size_t d = 0; d < axes.size(); ++d)
    v.push_back(ir::idx(o[d].name) * axes[d].stride + ir::idx(r[d].name) * axes[d].dilation - axes[d].pad);
  return v;
}

/// Iterators over the output extents (`o0`, ...) and the kernel extents (`r0`, ...) of `axes`.
inline std::vector<ir::iterator> output_iterators(const std::vector<window_axis>& axes) {
  std::vector<ir::iterator> v;
  for (std::size_t d = 0; d < axes.size(); ++d) v.push_back({"o" + std::to_string(d), 0, axes[d].out});
  return v;
}
inline std::vector<ir::iterator> kernel_iterators(const std::vector<window_axis>& axes) {
  std::vector<ir::iterator> v;
  for (std::size_t d = 0; d < axes.size(); ++d) v.push_back({"r" + std::to_string(d), 0, axes[d].kernel});
  return v;
}

}  // namespace ein::onnx::operators
