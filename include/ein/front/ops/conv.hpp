// Convolutions: conv2d, grouped_conv2d and depthwise_conv2d (stride, padding, dilation per axis;
// NHWC or NCHW; three filter layouts) and conv_transpose2d (NHWC).
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

namespace detail {

/// Where the r, s, f and c axes of a filter in layout F are.
struct filter_axes {
  std::size_t r, s, f, c;
};
constexpr filter_axes axes_of(filter f) {
  switch (f) {
    case filter::rsfc: return {0, 1, 2, 3};
    case filter::kcrs: return {2, 3, 0, 1};
    case filter::rscf: return {0, 1, 3, 2};
    case filter::krsc: return {1, 2, 0, 3};
  }
  return {0, 1, 2, 3};
}

/// `k(r, s, f, c)` with the indices in the order of filter layout F.
template <filter F, class K, class R, class S, class Fo, class C>
constexpr auto filter_access(K&& k, R r, S s, Fo f, C c) {
  if constexpr (F == filter::rsfc)
    return std::forward<K>(k)(r, s, f, c);
  else if constexpr (F == filter::kcrs)
    return std::forward<K>(k)(f, c, r, s);
  else if constexpr (F == filter::krsc)
    return std::forward<K>(k)(f, r, s, c);
  else
    return std::forward<K>(k)(r, s, c, f);
}

/// Whether x's C channels and the filter's F filters of Cg channels each split into Groups groups
/// (C = Groups·Cg, Groups divides F): conv2d's check of the channels in one group.
template <std::int64_t Groups, std::int64_t C, std::int64_t Cg, std::int64_t F>
constexpr bool channels_check() {
  if constexpr (Groups == 1)
    return front::checks::operand_extents<"conv2d", C == Cg>();
  else
    return front::checks::convolution_groups<"grouped_conv2d", (Groups > 0 && F % Groups == 0 && C == Groups * Cg)>();
}

/// The channel of x that filter f reads as its channel c, in Groups groups of Cg channels and Mg
/// filters: ⌊f / Mg⌋·Cg + c, written without the terms that are 0 or 1.
template <std::int64_t Groups, std::int64_t Cg, std::int64_t Mg, class Fv, class Cv>
constexpr auto group_channel(Fv f, Cv c) {
  if constexpr (Groups == 1)
    return c;
  else if constexpr (Cg == 1 && Mg == 1)
    return f;
  else if constexpr (Cg == 1)
    return f / Mg;
  else if constexpr (Mg == 1)
    return f * Cg + c;
  else
    return (f / Mg) * Cg + c;
}

/// The filter's channel index: c, or 0 where a grouped filter has one channel (nothing summed).
template <std::int64_t Groups, std::int64_t Cg, class Cv>
constexpr auto filter_channel(Cv c) {
  if constexpr (Groups != 1 && Cg == 1)
    return 0;
  else
    return c;
}

/// `body` summed over the three iterators in the order given, or over the two that are not the
/// channel c where filter_channel leaves it out.
template <std::int64_t Groups, std::int64_t Cg, class I0, class I1, class I2, class Body>
constexpr auto summed(I0 i0, I1 i1, I2 i2, Body body) {
  if constexpr (Groups != 1 && Cg == 1) {
    // c is i2 in the nhwc order (r, s, c) and i0 in the nchw order (c, r, s)
    if constexpr (std::is_same_v<I2, front::var<"c">>)
      return front::sum(i0, i1)(body);
    else
      return front::sum(i1, i2)(body);
  } else {
    return front::sum(i0, i1, i2)(body);
  }
}

}  // namespace detail

/// 2-D convolution with zero padding, stride, padding and dilation per axis (`ops::hw{sh, sw}`, or
/// one number for both), in `Groups` groups: the channels of x and the filters split into Groups
/// equal groups, and each filter reads the C/Groups channels of its own:
///   nhwc: y[n, h, w, f] = Σ_{r,s,c} x[n, h·st_h + r·dil_h − pad_h, w·st_w + s·dil_w − pad_w, g·Cg + c] · k[r, s, f, c]
///   nchw: y[n, f, h, w] = Σ_{c,r,s} x[n, g·Cg + c, h·st_h + r·dil_h − pad_h, w·st_w + s·dil_w − pad_w] · k[f, c, r, s]
/// with Cg = C / Groups channels a filter (the filter's c extent), Mg = F / Groups filters a group
/// and g = ⌊f / Mg⌋ the group of filter f; output extent (H + 2·pad_h − dil_h·(R − 1) − 1) / st_h + 1
/// along h (likewise w). The filter layout F is rsfc (r, s, f, c) with nhwc and kcrs (f, c, r, s,
/// PyTorch's, whose `groups` this is) with nchw unless told; rscf (r, s, c, f) is TensorFlow's;
/// krsc (f, r, s, c) is cuDNN's with NHWC data.
/// One group is conv2d; as many as channels, depthwise_conv2d. Where Cg is 1 the filter is read at
/// c = 0 and nothing is summed over c.
///
///     inline constexpr auto y = ops::grouped_conv2d<"y", /*groups*/ 2, ops::nchw, 1, 1>(X, K);  // K (F, C/2, 3, 3)
template <front::fixed_string Name, std::int64_t Groups, data_format L = nhwc, hw Stride = 1, hw Pad = 0,
          hw Dilation = 1, filter F = default_filter(L), operand X, operand K>
constexpr auto grouped_conv2d(X&& x, K&& k) {
  constexpr bool nhwc_ = L == data_format::nhwc;
  constexpr std::size_t xh = nhwc_ ? 1 : 2, xw = nhwc_ ? 2 : 3, xc = nhwc_ ? 3 : 1;
  constexpr detail::filter_axes ka = detail::axes_of(F);
  if constexpr (!front::checks::operand_ranks<"conv2d", plain<X>::rank == 4 && plain<K>::rank == 4>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operator_attributes<"conv2d", (Stride.h > 0 && Stride.w > 0 && Dilation.h > 0 &&
                                                                     Dilation.w > 0 && Pad.h >= 0 && Pad.w >= 0)>()) {
    return front::invalid{};
  } else if constexpr (!detail::channels_check<Groups, plain<X>::shape[xc], plain<K>::shape[ka.c],
                                                plain<K>::shape[ka.f]>()) {
    return front::invalid{};
  } else {
    constexpr std::int64_t oh =
        (plain<X>::shape[xh] + 2 * Pad.h - Dilation.h * (plain<K>::shape[ka.r] - 1) - 1) / Stride.h + 1;
    constexpr std::int64_t ow =
        (plain<X>::shape[xw] + 2 * Pad.w - Dilation.w * (plain<K>::shape[ka.s] - 1) - 1) / Stride.w + 1;
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
      constexpr std::int64_t cg = plain<K>::shape[ka.c], mg = plain<K>::shape[ka.f] / Groups;
      constexpr auto hh = h * Stride.h + r * Dilation.h - Pad.h;
      constexpr auto ww = w * Stride.w + s * Dilation.w - Pad.w;
      constexpr auto channel = detail::group_channel<Groups, cg, mg>(f, c);
      auto kernel = detail::filter_access<F>(std::forward<K>(k), r, s, f, detail::filter_channel<Groups, cg>(c));
      if constexpr (nhwc_)
        return front::def<Name>(front::over(n, h.template in<0, oh>, w.template in<0, ow>, f),
                                detail::summed<Groups, cg>(r, s, c, std::forward<X>(x)(n, hh, ww, channel) * kernel));
      else
        return front::def<Name>(front::over(n, f, h.template in<0, oh>, w.template in<0, ow>),
                                detail::summed<Groups, cg>(c, r, s, std::forward<X>(x)(n, channel, hh, ww) * kernel));
    }
  }
}

/// 2-D convolution: grouped_conv2d in one group.
///
///     inline constexpr auto y = ops::conv2d<"y", ops::nhwc, /*stride*/ 1, /*pad*/ 1>(X, K);
///     inline constexpr auto z = ops::conv2d<"z", ops::nchw, 1, ops::hw{0, 5}>(Xc, Kc);  // 1×11
///     inline constexpr auto t = ops::conv2d<"t", ops::nhwc, 1, 1, 1, ops::rscf>(X, Ktf);
template <front::fixed_string Name, data_format L = nhwc, hw Stride = 1, hw Pad = 0, hw Dilation = 1,
          filter F = default_filter(L), operand X, operand K>
constexpr auto conv2d(X&& x, K&& k) {
  return grouped_conv2d<Name, 1, L, Stride, Pad, Dilation, F>(std::forward<X>(x), std::forward<K>(k));
}

/// Depthwise 2-D convolution: grouped_conv2d in as many groups as x has channels, each filter
/// reading one channel (the filter's c extent is 1; F = C·multiplier filters, filter f reading
/// channel ⌊f / multiplier⌋), MobileNet's.
///
///     inline constexpr auto y = ops::depthwise_conv2d<"y", ops::nchw, 1, 1>(X, K);  // K (C, 1, 3, 3)
template <front::fixed_string Name, data_format L = nhwc, hw Stride = 1, hw Pad = 0, hw Dilation = 1,
          filter F = default_filter(L), operand X, operand K>
constexpr auto depthwise_conv2d(X&& x, K&& k) {
  constexpr std::int64_t channels = plain<X>::rank == 4 ? plain<X>::shape[L == data_format::nhwc ? 3 : 1] : 1;
  return grouped_conv2d<Name, channels, L, Stride, Pad, Dilation, F>(std::forward<X>(x), std::forward<K>(k));
}

/// 2-D transposed convolution (the gradient of conv2d with respect to its input), NHWC:
///   y[n, h, w, f] = Σ_{r,s,c} x[n, (h + pad − r) / st, (w + pad − s) / st, c] · k[r, s, f, c]
/// over the r, s with st | (h + pad − r); output extent (H − 1)·st − 2·pad + R + out_pad, where
/// out_pad (0 ≤ out_pad < st, PyTorch's output_padding) adds rows and columns at the end that
/// only the taps inside x reach, so that the output can be the size a stride-st convolution read.
/// Written without a divisibility test: with r = st·u + (h + pad) mod st the quotient is exact,
///   y[n, h, w, f] = Σ_{u,v,c} x[n, ⌊(h + pad)/st⌋ − u, ⌊(w + pad)/st⌋ − v, c]
///                              · k[st·u + (h + pad) mod st, st·v + (w + pad) mod st, f, c]
/// for u in [0, ⌈R/st⌉), v in [0, ⌈S/st⌉); kernel rows past R read the zero padding.
///
///     inline constexpr auto y = ops::conv_transpose2d<"y", ops::nhwc, /*stride*/ 2, /*pad*/ 1>(X, K);
///     inline constexpr auto z = ops::conv_transpose2d<"z", ops::nhwc, 2, 4, /*out_pad*/ 1>(X, K9);
template <front::fixed_string Name, data_format L = nhwc, std::int64_t Stride = 1, std::int64_t Pad = 0,
          std::int64_t OutPad = 0, operand X, operand K>
constexpr auto conv_transpose2d(X&& x, K&& k) {
  static_assert(L == data_format::nhwc, "ein::ops::conv_transpose2d: only the nhwc layout is provided");
  if constexpr (!front::checks::operand_ranks<"conv_transpose2d", plain<X>::rank == 4 && plain<K>::rank == 4>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::transposed_attributes<"conv_transpose2d", (Stride > 0 && Pad >= 0 && OutPad >= 0 &&
                                                                                 OutPad < Stride)>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"conv_transpose2d", plain<X>::shape[3] == plain<K>::shape[3]>()) {
    return front::invalid{};
  } else {
    constexpr std::int64_t oh = (plain<X>::shape[1] - 1) * Stride - 2 * Pad + plain<K>::shape[0] + OutPad;
    constexpr std::int64_t ow = (plain<X>::shape[2] - 1) * Stride - 2 * Pad + plain<K>::shape[1] + OutPad;
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
