// Matrix products: matmul (optionally transposed operands), batch_matmul, and linear (fully
// connected with bias).
#pragma once

#include "ein/front/ops/common.hpp"
#include "ein/front/ops/elementwise.hpp"

namespace ein::ops {

namespace detail {
constexpr bool transposes_a(transpose t) { return t == transpose::a || t == transpose::ab; }
constexpr bool transposes_b(transpose t) { return t == transpose::b || t == transpose::ab; }
}  // namespace detail

/// y[m, n] = Σ_k a[m, k] · b[k, n], with a stored (k, m) under trans_a and b stored (n, k) under
/// trans_b:  `ops::matmul<"y">(A, B)`, `ops::matmul<"y", ops::trans_b>(A, B)`.
template <front::fixed_string Name, transpose T = transpose::none, operand A, operand B>
constexpr auto matmul(A&& a, B&& b) {
  constexpr front::var<"m"> m;
  constexpr front::var<"n"> n;
  constexpr front::var<"k"> k;
  constexpr bool ta = detail::transposes_a(T), tb = detail::transposes_b(T);
  if constexpr (!front::checks::operand_ranks<"matmul", plain<A>::rank == 2 && plain<B>::rank == 2>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"matmul", plain<A>::shape[ta ? 0 : 1] == plain<B>::shape[tb ? 1 : 0]>()) {
    return front::invalid{};
  } else {
    auto lhs = [&] {
      if constexpr (ta) return std::forward<A>(a)(k, m); else return std::forward<A>(a)(m, k);
    }();
    auto rhs = [&] {
      if constexpr (tb) return std::forward<B>(b)(n, k); else return std::forward<B>(b)(k, n);
    }();
    return front::def<Name>(front::over(m, n), front::sum(k)(lhs * rhs));
  }
}

/// y[b, m, n] = Σ_k a[b, m, k] · c[b, k, n] (transposition as for matmul, per batch):
/// `ops::batch_matmul<"y">(A, C)`.
template <front::fixed_string Name, transpose T = transpose::none, operand A, operand C>
constexpr auto batch_matmul(A&& a, C&& c) {
  constexpr front::var<"b"> b;
  constexpr front::var<"m"> m;
  constexpr front::var<"n"> n;
  constexpr front::var<"k"> k;
  constexpr bool ta = detail::transposes_a(T), tb = detail::transposes_b(T);
  if constexpr (!front::checks::operand_ranks<"batch_matmul", plain<A>::rank == 3 && plain<C>::rank == 3>()) {
    return front::invalid{};
  } else if constexpr (!front::checks::operand_extents<"batch_matmul", plain<A>::shape[0] == plain<C>::shape[0] &&
                                                          plain<A>::shape[ta ? 1 : 2] == plain<C>::shape[tb ? 2 : 1]>()) {
    return front::invalid{};
  } else {
    auto lhs = [&] {
      if constexpr (ta) return std::forward<A>(a)(b, k, m); else return std::forward<A>(a)(b, m, k);
    }();
    auto rhs = [&] {
      if constexpr (tb) return std::forward<C>(c)(b, n, k); else return std::forward<C>(c)(b, k, n);
    }();
    return front::def<Name>(front::over(b, m, n), front::sum(k)(lhs * rhs));
  }
}

/// A fully connected layer with bias, PyTorch's Linear (weight stored (out, in)):
///   Name_matmul[n, o] = Σ_k x[n, k] · w[o, k]
///   Name[n, o]        = Name_matmul[n, o] + b[o]
///
///     inline constexpr auto y = ops::linear<"fc">(X, W, b);   // X (n, 512), W (10, 512), b (10)
template <front::fixed_string Name, operand X, operand W, operand B>
constexpr auto linear(X&& x, W&& w, B&& b) {
  auto product = matmul<front::suffixed<Name, "_matmul">(), trans_b>(std::forward<X>(x), std::forward<W>(w));
  if constexpr (std::is_same_v<decltype(product), front::invalid>)
    return front::invalid{};
  else
    return bias_add<Name>(std::move(product), std::forward<B>(b));
}

}  // namespace ein::ops
