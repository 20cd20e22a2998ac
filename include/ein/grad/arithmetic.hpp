// Body arithmetic that differentiation writes: sums and products that fold 0 and 1, the equality
// of two values as steps, and the indicator of an index in a range as a read of a constant scope.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "ein/ir/expr.hpp"

namespace ein::grad {

/// Whether `e` is the constant `v`.
inline bool is_constant(const ir::expr& e, double v) {
  auto* c = std::get_if<ir::constant>(&*e);
  return c && c->value == v;
}

/// a + b, folding a 0 operand.
inline ir::expr plus(const ir::expr& a, const ir::expr& b) {
  if (is_constant(a, 0)) return b;
  if (is_constant(b, 0)) return a;
  return a + b;
}

/// −a, folding a constant and a double negation.
inline ir::expr negate(const ir::expr& a) {
  if (auto* c = std::get_if<ir::constant>(&*a)) return ir::make_constant(-c->value);
  if (auto* u = std::get_if<ir::unary>(&*a); u && u->fn == ir::unary_fn::neg) return u->arg;
  return ir::make_unary(ir::unary_fn::neg, a);
}

/// a − b, folding a 0 operand.
inline ir::expr minus(const ir::expr& a, const ir::expr& b) {
  if (is_constant(b, 0)) return a;
  if (is_constant(a, 0)) return negate(b);
  return a - b;
}

/// a · b, folding 0, 1 and −1 operands (the IR's arithmetic is over the reals: 0 · x is 0).
inline ir::expr times(const ir::expr& a, const ir::expr& b) {
  if (is_constant(a, 0) || is_constant(b, 0)) return ir::make_constant(0);
  if (is_constant(a, 1)) return b;
  if (is_constant(b, 1)) return a;
  if (is_constant(a, -1)) return negate(b);
  if (is_constant(b, -1)) return negate(a);
  return a * b;
}

/// 1 where a = b, else 0: `1 − step(a − b) − step(b − a)`.
inline ir::expr equal(const ir::expr& a, const ir::expr& b) {
  auto one = ir::make_constant(1);
  return one - ir::make_unary(ir::unary_fn::step, a - b) - ir::make_unary(ir::unary_fn::step, b - a);
}

/// 1 where `index` lies in [lo, hi), else 0: a read of the constant scope `{L_{t:[lo,hi)} 1}`,
/// which is 0 outside its box (the IR's padding).
/// Example: `indicator(g0 - 2*t1, 0, 3)` prints `{L_{t:[0,3)} 1}[g0 - 2*t1]`.
inline ir::expr indicator(const ir::affine& index, std::int64_t lo, std::int64_t hi) {
  return ir::make_access(ir::make_scope({{"t", lo, hi}}, {}, ir::make_constant(1)), {index});
}

}  // namespace ein::grad
