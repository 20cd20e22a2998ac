// Simplification and substitution of indices that use iterator ranges (bounds: ir/bounds.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/error.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/expr.hpp"

namespace ein::derive {

using ir::bounds;
using ir::hull;
using ir::interval;
using ir::meet;
using ir::ranges;
using ir::values;

/// The half-open range [lo, hi + 1) of a non-empty interval, as an iterator's.
inline ir::iterator as_iterator(std::string name, const interval& v) {
  return {std::move(name), v.lo, v.hi + 1};
}

/// ceil(a / d) for d ≠ 0, rounding as floor_div does.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t d) { return -ir::floor_div(-a, d); }

/// One atom as an index of its own.
inline ir::affine as_affine(const ir::atom& a) {
  switch (a.k) {
    case ir::atom::kind::iter: return ir::affine::iter(a.name);
    case ir::atom::kind::floordiv: return a.arg->floordiv(a.divisor);
    case ir::atom::kind::mod: return a.arg->mod(a.divisor);
  }
  throw internal_error("unknown atom kind");
}

namespace detail {

// d·(A / d) + A % d = A, with any common coefficient: the identity that undoes a split.
inline ir::affine join_div_mod(ir::affine a) {
  for (;;) {
    std::optional<ir::affine> joined;
    for (auto& [m, c] : a.terms()) {
      if (m.k != ir::atom::kind::mod) continue;
      for (auto& [q, k] : a.terms())
        if (q.k == ir::atom::kind::floordiv && q.divisor == m.divisor && k == c * m.divisor &&
            *q.arg == *m.arg) {
          joined = a - as_affine(m) * c - as_affine(q) * k + *m.arg * c;
          break;
        }
      if (joined) break;
    }
    if (!joined) return a;
    a = std::move(*joined);
  }
}

}  // namespace detail

/// `a` simplified over the box `r`; the result equals `a` at every point of `r`.
/// Writing the argument of `/ d` or `% d` as d·q + e (q takes the terms d divides): when every
/// value of e lies in [k·d, (k+1)·d), `(d·q + e) / d` is q + k and `(d·q + e) % d` is e − k·d.
/// Then `d·(A / d) + A % d` becomes A.
/// Example: with w in [0, 5), `(5*h + w) / 5` → `h` and `(5*h + w) % 5` → `w`.
inline ir::affine simplify(const ir::affine& a, const ranges& r) {
  if (a.is_linear()) return a;
  ir::affine out(a.constant());
  for (auto& [at, c] : a.terms()) {
    if (at.k == ir::atom::kind::iter) {
      out = out + ir::affine::iter(at.name) * c;
      continue;
    }
    ir::affine arg = simplify(*at.arg, r);
    std::int64_t d = at.divisor;
    ir::affine q(ir::floor_div(arg.constant(), d)), e(ir::floor_mod(arg.constant(), d));
    for (auto& [t, k] : arg.terms()) {
      if (k % d == 0)
        q = q + as_affine(t) * (k / d);
      else
        e = e + as_affine(t) * k;
    }
    interval eb = bounds(e, r);
    bool one_period = !eb.empty() && ir::floor_div(eb.lo, d) == ir::floor_div(eb.hi, d);
    std::int64_t k = one_period ? ir::floor_div(eb.lo, d) : 0;
    ir::affine v;
    if (at.k == ir::atom::kind::floordiv)
      v = one_period ? q + k : arg.floordiv(d);
    else
      v = one_period ? e - k * d : arg.mod(d);
    out = out + v * c;
  }
  return detail::join_div_mod(std::move(out));
}

/// True when `a` reads an iterator that `with` maps (a cheap test before substituting).
inline bool reads_any(const ir::affine& a, const std::map<std::string, ir::affine>& with) {
  for (auto& [at, c] : a.terms())
    if (at.k == ir::atom::kind::iter ? with.count(at.name) != 0 : reads_any(*at.arg, with)) return true;
  return false;
}

/// `a` with iterators replaced by `with`, simplified over `r`; `a` itself when it reads none.
inline ir::affine substitute(const ir::affine& a, const std::map<std::string, ir::affine>& with,
                             const ranges& r) {
  return reads_any(a, with) ? simplify(a.substitute(with), r) : a;
}

/// Rebuilds the accesses of `e` with every index passed through substitute(index, with, r);
/// accesses that read no mapped iterator are shared.
inline ir::expr substitute(const ir::expr& e, const std::map<std::string, ir::affine>& with,
                           const ranges& r) {
  return map_accesses(e, [&](const ir::access& a) -> ir::expr {
    bool changes = false;
    for (auto& i : a.index) changes |= reads_any(i, with);
    if (!changes) return nullptr;
    std::vector<ir::affine> index;
    index.reserve(a.index.size());
    for (auto& i : a.index) index.push_back(substitute(i, with, r));
    return std::make_shared<const ir::node>(ir::access{a.source, std::move(index)});
  });
}

/// `prefix1`, `prefix2`, ...: the first that `taken` does not hold.
inline std::string fresh_name(const std::string& prefix, const std::vector<std::string>& taken) {
  for (int k = 1;; ++k) {
    std::string n = prefix + std::to_string(k);
    if (std::find(taken.begin(), taken.end(), n) == taken.end()) return n;
  }
}

/// The names of a scope's traversal and summation iterators.
inline std::vector<std::string> iterator_names(const ir::scope& s) {
  std::vector<std::string> v;
  for (auto& i : s.traversal) v.push_back(i.name);
  for (auto& i : s.summation) v.push_back(i.name);
  return v;
}

}  // namespace ein::derive
