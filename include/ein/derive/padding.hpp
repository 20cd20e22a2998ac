// Constant propagation through padding: where a body may be non-zero, whatever the inputs.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "ein/derive/ranges.hpp"
#include "ein/ir/expr.hpp"

namespace ein::derive {

/// True when f(0) = 0 for the unary function f (so a zero argument stays zero).
/// sigmoid(0) = 0.5 and exp(0) = 1: padding that flows through them is not zero any more.
constexpr bool keeps_zero(ir::unary_fn f) {
  switch (f) {
    case ir::unary_fn::neg:
    case ir::unary_fn::relu:
    case ir::unary_fn::tanh:
    case ir::unary_fn::sqrt:
    case ir::unary_fn::step: return true;
    case ir::unary_fn::sigmoid:
    case ir::unary_fn::exp: return false;
  }
  return false;
}

namespace detail {

// The values of `t` for which `a` may read inside its source's box, the other iterators ranging
// over `r`: each index dimension a·t + rest must reach the box for some value of rest.
inline interval readable_values(const ir::access& a, const std::string& t, const ranges& r) {
  interval v = r.at(t);
  auto lower = ir::source_lower(a);
  auto shape = ir::source_shape(a);
  for (std::size_t d = 0; d < a.index.size() && !v.empty(); ++d) {
    interval box{lower[d], lower[d] + shape[d] - 1};
    const ir::affine& e = a.index[d];
    std::int64_t c = e.coefficient(t);
    ir::affine rest = c == 0 ? e : e - ir::affine::iter(t) * c;
    if (rest.uses(t)) {
      // t also sits inside / or %: only a whole dimension out of the box is certain.
      if (meet(bounds(e, r), box).empty()) return {};
      continue;
    }
    interval rb = bounds(rest, r);
    if (rb.empty()) return {};
    if (c == 0) {
      if (meet(rb, box).empty()) return {};
      continue;
    }
    // c·t ∈ [box.lo − rest.hi, box.hi − rest.lo]
    std::int64_t lo = box.lo - rb.hi, hi = box.hi - rb.lo;
    v = meet(v, c > 0 ? interval{ceil_div(lo, c), ir::floor_div(hi, c)}
                      : interval{ceil_div(hi, c), ir::floor_div(lo, c)});
  }
  return v;
}

}  // namespace detail

/// The smallest interval of values of iterator `t` (within its range in `r`) outside which `e` is
/// 0 for every input and every value of the other iterators within `r`. Empty when `e` is always 0.
/// The analysis: a constant 0 is zero; an access is zero where its index is certainly outside its
/// source's box (the padding rule); `a * b` is zero where either is; `a ± b`, `max(a, b)` and
/// `min(a, b)` where both are;
/// `a / b` where `a` is, when `b` is a non-zero constant (0/0 is not 0); `f(a)` where `a` is, for
/// f with f(0) = 0 (neg, relu, tanh, sqrt; not sigmoid or exp).
/// Example: for `A[t1, t2, c] * K[r, s, f, c]` with A of shape [5, 5, 4] and t1 in [-1, 6),
/// the interval for t1 is [0, 4].
inline interval nonzero_values(const ir::expr& e, const std::string& t, const ranges& r) {
  return std::visit(
      [&](const auto& n) -> interval {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return n.value == 0 ? interval{} : r.at(t);
        } else if constexpr (std::is_same_v<T, ir::access>) {
          return detail::readable_values(n, t, r);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          return keeps_zero(n.fn) ? nonzero_values(n.arg, t, r) : r.at(t);
        } else {
          switch (n.op) {
            case ir::binary_op::add:
            case ir::binary_op::sub:
            case ir::binary_op::max:
            case ir::binary_op::min:
              return hull(nonzero_values(n.lhs, t, r), nonzero_values(n.rhs, t, r));
            case ir::binary_op::mul: {
              interval a = nonzero_values(n.lhs, t, r);
              return a.empty() ? a : meet(a, nonzero_values(n.rhs, t, r));
            }
            case ir::binary_op::div: {
              auto* c = std::get_if<ir::constant>(n.rhs.get());
              return c && c->value != 0 ? nonzero_values(n.lhs, t, r) : r.at(t);
            }
          }
          return r.at(t);
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

}  // namespace ein::derive
