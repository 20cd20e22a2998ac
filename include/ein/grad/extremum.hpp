// Max and min reductions differentiated as PyTorch's max pooling is: the gradient of each element
// goes to the first point of its window, in window order, whose value is the extremum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// A window's points numbered 1, 2, ..., N in window order: row-major over the summation
/// iterators as the scope lists them (a max pooling's (r, s): PyTorch's order). The number of a
/// point is read as `position` (0 outside the window: its box is the window's); `count` is N.
struct window {
  ir::expr position;
  std::int64_t count = 1;
};

/// The window of a max or min scope's summation box `z`, its positions read at `z` itself. The
/// numbers are the constant scope `{L_z Σ_{u:[0,N)} {L_{a:[0,N)} 1}[lin(z) − u]}`: the sum counts
/// the u ≤ lin(z), the row-major offset of z, so it is lin(z) + 1. An empty box is one point.
/// Example: for z = (r:[0,3), s:[0,3)), the point (1, 2) is number 6 of 9.
inline window window_of(const std::vector<ir::iterator>& z) {
  if (z.empty()) return {ir::make_constant(1), 1};
  std::int64_t n = 1;
  ir::affine lin(0);
  std::vector<std::string> names;
  std::vector<ir::affine> at;
  for (auto& i : z) {
    lin = lin * i.extent() + (ir::idx(i.name) - i.lo) * 1;
    n *= i.extent();
    names.push_back(i.name);
    at.push_back(ir::idx(i.name));
  }
  auto u = derive::fresh_name("u", names);
  auto ones = ir::make_scope({{"a", 0, n}}, {}, ir::make_constant(1));
  auto numbers = ir::make_scope(z, {{u, 0, n}}, ir::make_access(ones, {lin - ir::idx(u)}));
  return {ir::make_access(numbers, at), n};
}

/// The number of the first point of each window of max or min scope `s` (over its traversal box)
/// whose body equals the extremum, read from `value` (s's own value, as a tensor):
///     first[x] = min_z (position(z) + N·(1 − [body(x, z) = value[x]]))
/// a min scope over the same points as `s`, leaving out the same ones (those that read outside a
/// box: `value` and the positions are read inside theirs); +∞ where the window has no point.
inline ir::scope_ptr first_extremum(const ir::scope& s, const ir::tensor& value) {
  window w = window_of(s.summation);
  std::vector<ir::affine> x;
  for (auto& i : s.traversal) x.push_back(ir::idx(i.name));
  auto extremum = ir::make_access(value, x);
  auto differs = ir::make_unary(ir::unary_fn::step, s.body - extremum) + ir::make_unary(ir::unary_fn::step, extremum - s.body);
  return ir::make_scope(s.traversal, s.summation,
                        w.position + ir::make_constant(static_cast<double>(w.count)) * differs, ir::reduction::min);
}

}  // namespace ein::grad
