// Band matrix products of Longformer's dilated sliding-window attention: g2bmm and gbmm.
#pragma once

#include "ein/front/ops/common.hpp"

namespace ein::ops {

/// General to band matmul, half width W, dilation D (query · key over a dilated window):
///   y[b, m, w] = Σ_k a[b, m, k] · c[b, m + D·(w − W), k],   w in [0, 2W + 1)
/// Keys outside [0, M) read zero.  `ops::g2bmm<"scores", /*W*/ 2, /*D*/ 1>(Q, K)`.
template <front::fixed_string Name, std::int64_t W, std::int64_t D = 1, operand A, operand C>
constexpr auto g2bmm(A&& a, C&& c) {
  constexpr front::var<"b"> b;
  constexpr front::var<"m"> m;
  constexpr front::var<"w"> w;
  constexpr front::var<"k"> k;
  if constexpr (!front::checks::operand_ranks<"g2bmm", plain<A>::rank == 3 && plain<C>::rank == 3>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operator_attributes<"g2bmm", (W >= 0 && D > 0)>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"g2bmm", plain<A>::shape[0] == plain<C>::shape[0] &&
                                                             plain<A>::shape[2] == plain<C>::shape[2]>()) {
    return front::invalid{};
  } else {
    return front::def<Name>(front::over(b, m, w.template in<0, 2 * W + 1>),
                            front::sum(k)(std::forward<A>(a)(b, m, k) * std::forward<C>(c)(b, m + w * D - W * D, k)));
  }
}

/// General band matmul, the companion of g2bmm (attention weights · values):
///   y[b, m, n] = Σ_w a[b, m, w] · c[b, m + D·(w − W), n],   a has 2W + 1 columns
/// `ops::gbmm<"context", /*W*/ 2, /*D*/ 1>(P, V)`.
template <front::fixed_string Name, std::int64_t W, std::int64_t D = 1, operand A, operand C>
constexpr auto gbmm(A&& a, C&& c) {
  constexpr front::var<"b"> b;
  constexpr front::var<"m"> m;
  constexpr front::var<"n"> n;
  constexpr front::var<"w"> w;
  if constexpr (!front::checks::operand_ranks<"gbmm", plain<A>::rank == 3 && plain<C>::rank == 3>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operator_attributes<"gbmm", (W >= 0 && D > 0)>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"gbmm", plain<A>::shape[0] == plain<C>::shape[0] &&
                                                            plain<A>::shape[2] == 2 * W + 1>()) {
    return front::invalid{};
  } else {
    return front::def<Name>(front::over(b, m, n),
                            front::sum(w)(std::forward<A>(a)(b, m, w) * std::forward<C>(c)(b, m + w * D - W * D, n)));
  }
}

}  // namespace ein::ops
