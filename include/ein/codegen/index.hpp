// Index arithmetic for emitters: the range of a quasi-affine index over an iterator box, and
// its C++ text (plain `/` and `%` where the dividend cannot be negative).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "ein/error.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/expr.hpp"

namespace ein::codegen {

using ir::interval;

/// The box an index is evaluated over: each iterator's values, and its C++ variable name.
struct iterator_box {
  ir::ranges range;
  std::map<std::string, std::string> variable;

  void add(const ir::iterator& it, std::string var) {
    range.set(it.name, ir::values(it));
    variable[it.name] = std::move(var);
  }
};

/// Smallest interval holding `a` for every point of `box` (ir::bounds).
/// @pre the box is not empty and holds every iterator `a` uses.
inline interval bounds(const ir::affine& a, const iterator_box& box) { return ir::bounds(a, box.range); }

/// An integer literal of type int64 on every platform.
inline std::string int_text(std::int64_t v) {
  bool wide = v > 2147483647 || v < -2147483647;
  return std::to_string(v) + (wide ? "LL" : "");
}

/// C++ text of `a` with iterators replaced by their variables: `2 * i_h + i_r - 1`,
/// `(i_m + 3) / 4` when the dividend is never negative, `ein::runtime::floor_div(i_m - 3, 4)`
/// otherwise.
inline std::string index_text(const ir::affine& a, const iterator_box& box) {
  std::string s;
  for (auto& [at, c] : a.terms()) {
    std::string t;
    if (at.k == ir::atom::kind::iter) {
      t = box.variable.at(at.name);
    } else {
      bool is_mod = at.k == ir::atom::kind::mod;
      std::string arg = index_text(*at.arg, box), d = int_text(at.divisor);
      if (bounds(*at.arg, box).lo >= 0) {
        bool simple = at.arg->is_constant() || at.arg->as_iter();
        t = "(" + (simple ? arg : "(" + arg + ")") + (is_mod ? " % " : " / ") + d + ")";
      }
      else
        t = std::string("ein::runtime::") + (is_mod ? "floor_mod(" : "floor_div(") + arg + ", " +
            d + ")";
    }
    std::int64_t mag = c < 0 ? -c : c;
    if (mag != 1) t = int_text(mag) + " * " + t;
    s += s.empty() ? (c < 0 ? "-" + t : t) : (c < 0 ? " - " : " + ") + t;
  }
  if (s.empty()) return int_text(a.constant());
  if (a.constant() > 0) s += " + " + int_text(a.constant());
  if (a.constant() < 0) s += " - " + int_text(-a.constant());
  return s;
}

/// Row-major offset of `index` into a box [lower, lower + shape) as one canonical affine
/// (so constant parts fold: `A[n, h + r - 1, ...]` gives one constant, not one per dimension).
inline ir::affine offset(const std::vector<ir::affine>& index, const std::vector<std::int64_t>& lower,
                         const std::vector<std::int64_t>& shape) {
  ir::affine off;
  std::int64_t stride = 1;
  for (std::size_t d = index.size(); d-- > 0;) {
    off = off + (index[d] - lower[d]) * stride;
    stride *= shape[d];
  }
  return off;
}

}  // namespace ein::codegen
