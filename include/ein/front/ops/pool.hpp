// Pooling: max_pool2d, avg_pool2d (PyTorch's count_include_pad) and global_avg_pool.
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

namespace detail {

/// Output extent of a window of `kernel` at `stride` over `extent` padded by `pad` on each side
/// (PyTorch's, ceil_mode off).
constexpr std::int64_t pooled_extent(std::int64_t extent, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  return (extent + 2 * pad - kernel) / stride + 1;
}

/// Why a pooling's attributes are fine: a positive window and stride, a padding of at most half
/// the window (PyTorch's rule, so that no window lies wholly in the padding).
template <hw Kernel, hw Stride, hw Pad>
inline constexpr bool pool_attributes = Kernel.h > 0 && Kernel.w > 0 && Stride.h > 0 && Stride.w > 0 && Pad.h >= 0 &&
                                        Pad.w >= 0 && 2 * Pad.h <= Kernel.h && 2 * Pad.w <= Kernel.w;

/// The def of a 2-D window reduction `reduce(r, s)(f(x[n, h·st + r − pad, w·st + s − pad, c]))`
/// (nchw: x[n, c, ...]), whatever Reduce is (front::sum, front::max).
template <front::fixed_string Name, front::fixed_string Op, data_format L, hw Kernel, hw Stride, hw Pad, class X, class Reduce,
          class F>
constexpr auto window(X&& x, Reduce reduce, F f) {
  constexpr bool nhwc_ = L == data_format::nhwc;
  constexpr std::size_t xh = nhwc_ ? 1 : 2, xw = nhwc_ ? 2 : 3;
  if constexpr (!front::checks::operand_ranks<Op, plain<X>::rank == 4>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::pool_attributes<Op, pool_attributes<Kernel, Stride, Pad>>()) {
    return front::invalid{};
  } else {
    constexpr std::int64_t oh = pooled_extent(plain<X>::shape[xh], Kernel.h, Stride.h, Pad.h);
    constexpr std::int64_t ow = pooled_extent(plain<X>::shape[xw], Kernel.w, Stride.w, Pad.w);
    if constexpr (!front::checks::output_extents<Op, (oh > 0 && ow > 0)>()) {
      return front::invalid{};
    } else {
      constexpr front::var<"n"> n;
      constexpr front::var<"h"> h;
      constexpr front::var<"w"> w;
      constexpr front::var<"c"> c;
      constexpr auto r = front::var<"r">::in<0, Kernel.h>;
      constexpr auto s = front::var<"s">::in<0, Kernel.w>;
      constexpr front::var<"r"> rv;
      constexpr front::var<"s"> sv;
      constexpr auto hh = h * Stride.h + rv - Pad.h;
      constexpr auto ww = w * Stride.w + sv - Pad.w;
      if constexpr (nhwc_)
        return front::def<Name>(front::over(n, h.template in<0, oh>, w.template in<0, ow>, c),
                                reduce(r, s)(f(std::forward<X>(x)(n, hh, ww, c))));
      else
        return front::def<Name>(front::over(n, c, h.template in<0, oh>, w.template in<0, ow>),
                                reduce(r, s)(f(std::forward<X>(x)(n, c, hh, ww))));
    }
  }
}

}  // namespace detail

/// 2-D max pooling, PyTorch's MaxPool2d (ceil_mode off, dilation 1): padding is left out of every
/// window, never read as 0 (docs/decisions/0008), so a window over negative values at a border
/// gives its largest value, not 0:
///   nhwc: y[n, h, w, c] = max_{r,s} x[n, h·st_h + r − pad_h, w·st_w + s − pad_w, c]
/// over the r, s whose read is inside x; output extent (H + 2·pad_h − K_h) / st_h + 1. The stride
/// defaults to the window, and padding may be at most half the window (PyTorch's rule).
///
///     inline constexpr auto p = ops::max_pool2d<"p", ops::nhwc, /*window*/ 3, /*stride*/ 2, /*pad*/ 1>(X);
template <front::fixed_string Name, data_format L = nhwc, hw Kernel = 2, hw Stride = Kernel, hw Pad = 0, operand X>
constexpr auto max_pool2d(X&& x) {
  return detail::window<Name, "max_pool2d", L, Kernel, Stride, Pad>(
      std::forward<X>(x), [](auto... i) { return front::max(i...); }, [](auto v) { return v; });
}

/// 2-D average pooling with PyTorch's defaults for AvgPool2d (count_include_pad on, ceil_mode
/// off): padding reads 0 and every window divides by its full size K_h·K_w, at borders too:
///   nhwc: y[n, h, w, c] = Σ_{r,s} x[n, h·st_h + r − pad_h, w·st_w + s − pad_w, c] / (K_h·K_w)
/// Attributes as for max_pool2d.
///
///     inline constexpr auto p = ops::avg_pool2d<"p", ops::nchw, 3, 1, 1>(X);
template <front::fixed_string Name, data_format L = nhwc, hw Kernel = 2, hw Stride = Kernel, hw Pad = 0, operand X>
constexpr auto avg_pool2d(X&& x) {
  constexpr double size = static_cast<double>(Kernel.h * Kernel.w);
  return detail::window<Name, "avg_pool2d", L, Kernel, Stride, Pad>(
      std::forward<X>(x), [](auto... i) { return front::sum(i...); }, [size](auto v) { return v / size; });
}

/// Global average pooling to (n, c): y[n, c] = Σ_{h,w} x[n, h, w, c] / (H·W) (nchw: x[n, c, h, w]),
/// as PyTorch's AdaptiveAvgPool2d(1) followed by flatten.
///
///     inline constexpr auto g = ops::global_avg_pool<"g", ops::nhwc>(X);   // (n, c)
template <front::fixed_string Name, data_format L = nhwc, operand X>
constexpr auto global_avg_pool(X&& x) {
  if constexpr (!front::checks::operand_ranks<"global_avg_pool", plain<X>::rank == 4>()) {
    return front::invalid{};
  } else {
    constexpr bool nhwc_ = L == data_format::nhwc;
    constexpr double size = static_cast<double>(plain<X>::shape[nhwc_ ? 1 : 2] * plain<X>::shape[nhwc_ ? 2 : 3]);
    constexpr front::var<"n"> n;
    constexpr front::var<"h"> h;
    constexpr front::var<"w"> w;
    constexpr front::var<"c"> c;
    if constexpr (nhwc_)
      return front::def<Name>(front::over(n, c), front::sum(h, w)(std::forward<X>(x)(n, h, w, c) / size));
    else
      return front::def<Name>(front::over(n, c), front::sum(h, w)(std::forward<X>(x)(n, c, h, w) / size));
  }
}

}  // namespace ein::ops
