// Interval bounds of quasi-affine indices over a box of iterator values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"

namespace ein::ir {

/// A closed integer interval [lo, hi]; empty when lo > hi.
struct interval {
  std::int64_t lo = 0, hi = -1;

  bool empty() const { return lo > hi; }
  /// True when every value of `o` lies in this interval.
  bool contains(const interval& o) const { return o.empty() || (lo <= o.lo && o.hi <= hi); }
  friend bool operator==(const interval&, const interval&) = default;
};

/// The smallest interval holding both.
inline interval hull(const interval& a, const interval& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
/// The intersection.
inline interval meet(const interval& a, const interval& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
/// The values an iterator takes: [lo, hi - 1].
inline interval values(const iterator& i) { return {i.lo, i.hi - 1}; }

/// The values of the iterators of a scope: a small flat list, since scopes have few iterators.
class ranges {
 public:
  ranges() = default;
  /// The traversal and summation boxes of `s`.
  explicit ranges(const scope& s) {
    add(s.traversal);
    add(s.summation);
  }
  void add(const std::vector<iterator>& its) {
    for (auto& i : its) set(i.name, values(i));
  }
  void set(const std::string& name, const interval& v) {
    for (auto& [n, r] : items_)
      if (n == name) {
        r = v;
        return;
      }
    items_.emplace_back(name, v);
  }
  bool has(const std::string& name) const {
    for (auto& [n, r] : items_)
      if (n == name) return true;
    return false;
  }
  /// The values of `name`; an iterator the scope does not declare is a malformed expression.
  const interval& at(const std::string& name) const {
    for (auto& [n, r] : items_)
      if (n == name) return r;
    throw user_error("an index uses iterator `" + name +
                     "`, which is neither a traversal nor a summation iterator of its scope");
  }

 private:
  std::vector<std::pair<std::string, interval>> items_;
};

/// The smallest interval holding every value of `a` over the box `r`: exact for linear indices in
/// which each iterator appears once, a superset through `/` and `%`. Empty when a range is empty.
/// Example: `h + r - 1` over h in [0, 7), r in [0, 3) gives [-1, 7].
inline interval bounds(const affine& a, const ranges& r) {
  interval v{a.constant(), a.constant()};
  for (auto& [at, c] : a.terms()) {
    interval t;
    if (at.k == atom::kind::iter) {
      t = r.at(at.name);
    } else {
      interval g = bounds(*at.arg, r);
      if (g.empty()) return g;
      std::int64_t d = at.divisor, ql = floor_div(g.lo, d), qh = floor_div(g.hi, d);
      if (at.k == atom::kind::floordiv)
        t = {ql, qh};
      else
        t = ql == qh ? interval{g.lo - ql * d, g.hi - ql * d} : interval{0, d - 1};
    }
    if (t.empty()) return t;
    v.lo += c > 0 ? c * t.lo : c * t.hi;
    v.hi += c > 0 ? c * t.hi : c * t.lo;
  }
  return v;
}

}  // namespace ein::ir
