// Softmax over the last axis, numerically stable: a max, an exponential, a sum and a quotient.
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

namespace detail {

template <front::fixed_string Name, class X, std::size_t... K>
constexpr auto softmax(X&& x, std::index_sequence<K...>) {
  constexpr dim<sizeof...(K)> j;
  auto top = front::def<front::suffixed<Name, "_max">()>(front::over(dim<K>{}...),
                                                  front::max(j)(reread<X>(x)(dim<K>{}..., j)));
  auto e = front::def<front::suffixed<Name, "_exp">()>(
      front::over(dim<K>{}..., j), front::exp(std::forward<X>(x)(dim<K>{}..., j) - std::move(top)(dim<K>{}...)));
  auto total = front::def<front::suffixed<Name, "_sum">()>(front::over(dim<K>{}...),
                                                    front::sum(j)(reread<decltype(e)>(e)(dim<K>{}..., j)));
  return front::def<Name>(front::over(dim<K>{}..., j), std::move(e)(dim<K>{}..., j) / std::move(total)(dim<K>{}...));
}

}  // namespace detail

/// Softmax over the last axis j of x (any rank R >= 1), written as four definitions so that the
/// exponential never overflows:
///   Name_max[i...]    = max_j x[i..., j]
///   Name_exp[i..., j] = exp(x[i..., j] − Name_max[i...])
///   Name_sum[i...]    = Σ_j Name_exp[i..., j]
///   Name[i..., j]     = Name_exp[i..., j] / Name_sum[i...]
///
///     inline constexpr auto p = ops::softmax<"p">(scores);   // (b, m, w), over w
template <front::fixed_string Name, operand X>
constexpr auto softmax(X&& x) {
  if constexpr (!front::checks::operand_ranks<"softmax", plain<X>::rank >= 1>())
    return front::invalid{};
  else
    return detail::softmax<Name>(std::forward<X>(x), std::make_index_sequence<plain<X>::rank - 1>{});
}

}  // namespace ein::ops
