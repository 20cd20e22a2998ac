// Batch normalization at inference: batch_norm, and conv2d_batch_norm, a convolution with the
// normalization folded into its filter and bias.
#pragma once

#include "ein/front/ops/conv.hpp"
#include "ein/front/ops/elementwise.hpp"

namespace ein::ops {

/// Batch normalization at inference (PyTorch's BatchNorm2d in eval mode), per channel (channel
/// axis as for bias_add):
///   y[.., c, ..] = (x[.., c, ..] − mean[c]) · scale[c] / sqrt(var[c] + eps) + shift[c]
///
///     inline constexpr auto y = ops::batch_norm<"y", ops::nhwc>(X, gamma, beta, mean, var, 1e-5);
template <front::fixed_string Name, data_format L = nhwc, operand X, operand G, operand B, operand M, operand V>
constexpr auto batch_norm(X&& x, G&& scale, B&& shift, M&& mean, V&& var, double eps = 1e-5) {
  return detail::per_axis<Name, "batch_norm", detail::channel_axis<L, plain<X>::rank>>(
      [eps](auto v, auto g, auto b, auto m, auto s) { return (v - m) * (g / front::sqrt(s + eps)) + b; },
      std::forward<X>(x), std::forward<G>(scale), std::forward<B>(shift), std::forward<M>(mean), std::forward<V>(var));
}

/// conv2d followed by batch_norm over its output channels, folded: the filter and a bias are
/// transformed from the weights, and the run computes a convolution and a bias_add only,
///   Name_weight[.., f, ..] = k[.., f, ..] · scale[f] / sqrt(var[f] + eps)       (k's layout F)
///   Name_bias[f]           = shift[f] − mean[f] · scale[f] / sqrt(var[f] + eps)
///   Name_conv              = conv2d<L, Stride, Pad, Dilation, F>(x, Name_weight)
///   Name                   = bias_add<L>(Name_conv, Name_bias)
/// which equals batch_norm(conv2d(x, k), scale, shift, mean, var, eps) over the reals. The
/// filter and the parameters must be weights: Name_weight and Name_bias read weights only, so
/// they are weight transforms, run once by ein::prepare (docs/decisions/0006).
///
///     inline constexpr auto y = ops::conv2d_batch_norm<"y", ops::nhwc, 1, 1>(X, K, gamma, beta, mean, var);
template <front::fixed_string Name, data_format L = nhwc, hw Stride = 1, hw Pad = 0, hw Dilation = 1,
          filter F = default_filter(L), operand X, operand K, operand G, operand B, operand M, operand V>
constexpr auto conv2d_batch_norm(X&& x, K&& k, G&& scale, B&& shift, M&& mean, V&& var, double eps = 1e-5) {
  if constexpr (!front::checks::folded_operands<"conv2d_batch_norm",
                                                detail::is_weight<plain<K>>() && detail::is_weight<plain<G>>() &&
                                                    detail::is_weight<plain<B>>() && detail::is_weight<plain<M>>() &&
                                                    detail::is_weight<plain<V>>()>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_ranks<"conv2d_batch_norm", plain<K>::rank == 4>()) {
    return front::invalid{};
  } else {
    auto factor = [eps](auto g, auto s) { return g / front::sqrt(s + eps); };
    constexpr detail::dim<0> i;
    auto bias = front::def<front::suffixed<Name, "_bias">()>(front::over(i),
                                                              shift(i) - mean(i) * factor(scale(i), var(i)));
    auto weight = detail::per_axis<front::suffixed<Name, "_weight">(), "conv2d_batch_norm", detail::axes_of(F).f>(
        [factor](auto w, auto g, auto s) { return w * factor(g, s); }, k, scale, var);
    auto conv = conv2d<front::suffixed<Name, "_conv">(), L, Stride, Pad, Dilation, F>(std::forward<X>(x), std::move(weight));
    if constexpr (std::is_same_v<decltype(conv), front::invalid> || std::is_same_v<decltype(weight), front::invalid>)
      return front::invalid{};
    else
      return bias_add<Name, L>(std::move(conv), std::move(bias));
  }
}

}  // namespace ein::ops
