// Convolutions: conv2d (stride, padding, dilation; NHWC or NCHW) and conv_transpose2d (NHWC).
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

/// 2-D convolution with zero padding:
///   nhwc: y[n, h, w, f] = Σ_{r,s,c} x[n, h·st + r·dil − pad, w·st + s·dil − pad, c] · k[r, s, f, c]
///   nchw: y[n, f, h, w] = Σ_{c,r,s} x[n, c, h·st + r·dil − pad, w·st + s·dil − pad] · k[f, c, r, s]
/// with output extent (H + 2·pad − dil·(R − 1) − 1) / st + 1 along h (likewise w).
///
///     inline constexpr auto y = ops::conv2d<"y", ops::nhwc, /*stride*/ 1, /*pad*/ 1>(X, K);
template <front::fixed_string Name, layout L = nhwc, std::int64_t Stride = 1, std::int64_t Pad = 0,
          std::int64_t Dilation = 1, operand X, operand K>
constexpr auto conv2d(X&& x, K&& k) {
  constexpr bool nhwc_ = L == layout::nhwc;
  constexpr std::size_t xh = nhwc_ ? 1 : 2, xw = nhwc_ ? 2 : 3, xc = nhwc_ ? 3 : 1;
  constexpr std::size_t kr = nhwc_ ? 0 : 2, ks = nhwc_ ? 1 : 3, kc = nhwc_ ? 3 : 1;
  if constexpr (!front::checks::operand_ranks<"conv2d", plain<X>::rank == 4 && plain<K>::rank == 4>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operator_attributes<"conv2d", (Stride > 0 && Dilation > 0 && Pad >= 0)>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"conv2d", plain<X>::shape[xc] == plain<K>::shape[kc]>()) {
    return front::invalid{};
  } else {
    constexpr std::int64_t oh = (plain<X>::shape[xh] + 2 * Pad - Dilation * (plain<K>::shape[kr] - 1) - 1) / Stride + 1;
    constexpr std::int64_t ow = (plain<X>::shape[xw] + 2 * Pad - Dilation * (plain<K>::shape[ks] - 1) - 1) / Stride + 1;
    if constexpr (!front::checks::output_extents<"conv2d", (oh > 0 && ow > 0)>()) {
      return front::invalid{};
    } else {
      constexpr front::var<"n"> n;
      constexpr front::var<"h"> h;
      constexpr front::var<"w"> w;
      constexpr front::var<"f"> f;
      constexpr front::var<"r"> r;
      constexpr front::var<"s"> s;
      constexpr front::var<"c"> c;
      constexpr auto hh = h * Stride + r * Dilation - Pad;
      constexpr auto ww = w * Stride + s * Dilation - Pad;
      if constexpr (nhwc_)
        return front::def<Name>(front::over(n, h.template in<0, oh>, w.template in<0, ow>, f),
                                front::sum(r, s, c)(std::forward<X>(x)(n, hh, ww, c) * std::forward<K>(k)(r, s, f, c)));
      else
        return front::def<Name>(front::over(n, f, h.template in<0, oh>, w.template in<0, ow>),
                                front::sum(c, r, s)(std::forward<X>(x)(n, c, hh, ww) * std::forward<K>(k)(f, c, r, s)));
    }
  }
}

/// 2-D transposed convolution (the gradient of conv2d with respect to its input), NHWC:
///   y[n, h, w, f] = Σ_{r,s,c} x[n, (h + pad − r) / st, (w + pad − s) / st, c] · k[r, s, f, c]
/// over the r, s with st | (h + pad − r); output extent (H − 1)·st − 2·pad + R.
/// Written without a divisibility test: with r = st·u + (h + pad) mod st the quotient is exact,
///   y[n, h, w, f] = Σ_{u,v,c} x[n, ⌊(h + pad)/st⌋ − u, ⌊(w + pad)/st⌋ − v, c]
///                              · k[st·u + (h + pad) mod st, st·v + (w + pad) mod st, f, c]
/// for u in [0, ⌈R/st⌉), v in [0, ⌈S/st⌉); kernel rows past R read the zero padding.
///
///     inline constexpr auto y = ops::conv_transpose2d<"y", ops::nhwc, /*stride*/ 2, /*pad*/ 1>(X, K);
template <front::fixed_string Name, layout L = nhwc, std::int64_t Stride = 1, std::int64_t Pad = 0,
          operand X, operand K>
constexpr auto conv_transpose2d(X&& x, K&& k) {
  static_assert(L == layout::nhwc, "ein::ops::conv_transpose2d: only the nhwc layout is provided");
  if constexpr (!front::checks::operand_ranks<"conv_transpose2d", plain<X>::rank == 4 && plain<K>::rank == 4>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operator_attributes<"conv_transpose2d", (Stride > 0 && Pad >= 0)>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"conv_transpose2d", plain<X>::shape[3] == plain<K>::shape[3]>()) {
    return front::invalid{};
  } else {
    constexpr std::int64_t oh = (plain<X>::shape[1] - 1) * Stride - 2 * Pad + plain<K>::shape[0];
    constexpr std::int64_t ow = (plain<X>::shape[2] - 1) * Stride - 2 * Pad + plain<K>::shape[1];
    constexpr std::int64_t uh = (plain<K>::shape[0] + Stride - 1) / Stride;
    constexpr std::int64_t uw = (plain<K>::shape[1] + Stride - 1) / Stride;
    if constexpr (!front::checks::output_extents<"conv_transpose2d", (oh > 0 && ow > 0)>()) {
      return front::invalid{};
    } else {
      constexpr front::var<"n"> n;
      constexpr front::var<"h"> h;
      constexpr front::var<"w"> w;
      constexpr front::var<"f"> f;
      constexpr front::var<"u"> u;
      constexpr front::var<"v"> v;
      constexpr front::var<"c"> c;
      return front::def<Name>(
          front::over(n, h.template in<0, oh>, w.template in<0, ow>, f),
          front::sum(u.template in<0, uh>, v.template in<0, uw>, c)(
              std::forward<X>(x)(n, (h + Pad) / Stride - u, (w + Pad) / Stride - v, c) *
              std::forward<K>(k)(u * Stride + (h + Pad) % Stride, v * Stride + (w + Pad) % Stride, f, c)));
    }
  }
}

}  // namespace ein::ops
