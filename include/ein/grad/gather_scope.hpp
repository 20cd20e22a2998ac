// A gather written as a scope: the sum of a term over the points that read each element, with
// the conditions no factor of the term already enforces, split iterators joined back, and each
// summation range cut to where the term's factors read inside their boxes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/grad/arithmetic.hpp"
#include "ein/grad/invert.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// The reads that are factors of `e`: `e` is their product with other terms, through products
/// and negations, so that `e` is 0 wherever one of them reads outside its source's box.
/// Example: in `-(A[i] * relu(B[i])) * C[i]`, A[i] and C[i].
inline std::vector<const ir::access*> factor_reads(const ir::expr& e) {
  std::vector<const ir::access*> out;
  std::vector<const ir::node*> todo{e.get()};
  while (!todo.empty()) {
    const ir::node* n = todo.back();
    todo.pop_back();
    if (auto* a = std::get_if<ir::access>(n)) out.push_back(a);
    if (auto* u = std::get_if<ir::unary>(n); u && u->fn == ir::unary_fn::neg) todo.push_back(u->arg.get());
    if (auto* b = std::get_if<ir::binary>(n); b && b->op == ir::binary_op::mul) {
      todo.push_back(b->rhs.get());
      todo.push_back(b->lhs.get());
    }
  }
  return out;
}

/// Whether condition `c` holds at every point where the reads `factors` are all inside their
/// boxes: some read's index in some dimension is ±c.index + k, and that dimension's box lies in
/// the condition's range so shifted.
/// Example: `h ∈ [0, 4)` holds wherever `dY[n, h, f]` (dY of shape (2, 4, 8)) reads inside.
inline bool implied(const condition& c, const std::vector<const ir::access*>& factors) {
  for (auto* a : factors) {
    auto lower = ir::source_lower(*a);
    auto shape = ir::source_shape(*a);
    for (std::size_t d = 0; d < a->index.size(); ++d) {
      for (std::int64_t sign : {1, -1}) {
        ir::affine k = a->index[d] - c.index * sign;
        if (!k.is_constant()) continue;
        // sign·x + k ∈ [lower, lower + shape)  ⇒  x ∈ [lo, hi)
        std::int64_t from = lower[d] - k.constant(), to = lower[d] + shape[d] - 1 - k.constant();
        if (sign < 0) std::swap(from, to), from = -from, to = -to;
        if (from >= c.lo && to <= c.hi - 1) return true;
      }
    }
  }
  return false;
}

namespace detail {

// Every index of every read of `e` (top level: nested scopes are closed terms).
template <class F>
void for_each_index(const ir::expr& e, F&& f) {
  ir::for_each_access(e, [&](const ir::access& a) {
    for (auto& i : a.index) f(i);
  });
}

// Joins summation iterators u and p, p over [0, c), that every index reads as k·(c·u + p) only,
// into one iterator r = c·u + p over [c·u.lo, c·u.hi): a transposed convolution's taps split by
// its stride, read back as one filter dimension.
inline void join_split(std::vector<ir::iterator>& summation, ir::expr& body) {
  for (bool again = true; again;) {
    again = false;
    for (std::size_t i = 0; i < summation.size() && !again; ++i)
      for (std::size_t j = 0; j < summation.size() && !again; ++j) {
        const ir::iterator u = summation[i], p = summation[j];
        const std::int64_t c = p.extent();
        if (i == j || p.lo != 0 || c < 2) continue;
        bool read = false, joint = true;
        for_each_index(body, [&](const ir::affine& e) {
          std::int64_t cu = e.coefficient(u.name), cp = e.coefficient(p.name);
          for (auto& [at, k] : e.terms())
            if (at.k != ir::atom::kind::iter && (at.arg->uses(u.name) || at.arg->uses(p.name))) joint = false;
          if (cu != c * cp) joint = false;
          read = read || cp != 0;
        });
        if (!read || !joint) continue;
        ir::iterator r{u.name, c * u.lo, c * u.hi};
        body = ir::map_accesses(body, [&](const ir::access& a) -> ir::expr {
          std::vector<ir::affine> index;
          for (auto& e : a.index) {
            std::int64_t cp = e.coefficient(p.name);
            index.push_back(e.substitute({{u.name, 0}, {p.name, 0}}) + ir::idx(r.name) * cp);
          }
          return std::make_shared<const ir::node>(ir::access{a.source, std::move(index)});
        });
        summation[i] = r;
        summation.erase(summation.begin() + static_cast<std::ptrdiff_t>(j));
        again = true;
      }
  }
}

// Cuts each summation range to the values at which every factor read that reads it as ±w + k is
// inside its box; false when one becomes empty (the sum is 0).
inline bool tighten(std::vector<ir::iterator>& summation, const ir::expr& body) {
  auto factors = factor_reads(body);
  for (auto& w : summation) {
    for (auto* a : factors) {
      auto lower = ir::source_lower(*a);
      auto shape = ir::source_shape(*a);
      for (std::size_t d = 0; d < a->index.size(); ++d) {
        const ir::affine& e = a->index[d];
        std::int64_t s = e.coefficient(w.name);
        if ((s != 1 && s != -1) || !(e - ir::idx(w.name) * s).is_constant()) continue;
        std::int64_t k = (e - ir::idx(w.name) * s).constant();
        std::int64_t from = lower[d] - k, to = lower[d] + shape[d] - 1 - k;  // s·w ∈ [from, to]
        if (s < 0) std::swap(from, to), from = -from, to = -to;
        w.lo = std::max(w.lo, from), w.hi = std::min(w.hi, to + 1);
      }
    }
    if (w.lo >= w.hi) return false;
  }
  return true;
}

}  // namespace detail

/// The scope `L_g Σ_W [conditions] · term(point(g, W))` of gather `g`: `term` is over the
/// iterators of the scope the gather inverts. A condition that every point meets, or that a factor
/// read of the term (or one
/// of `masks`, reads over the same iterators that are 0 outside their boxes wherever the term is
/// not) enforces is left out; the others multiply the term as indicators (arithmetic.hpp).
/// Summation iterators split by the inversion and read only together are joined, summation ranges
/// are cut to where the factors read inside their boxes, and an iterator left with one value is
/// replaced by it.
inline ir::scope_ptr gather_scope(const gather& g, const ir::expr& term, const std::vector<ir::expr>& masks = {}) {
  ir::ranges r;
  r.add(g.element);
  r.add(g.summation);
  ir::expr body = derive::substitute(term, g.point, r);
  auto factors = factor_reads(body);
  std::vector<ir::expr> mask_reads;
  for (auto& m : masks) {
    mask_reads.push_back(derive::substitute(m, g.point, r));
    factors.push_back(&std::get<ir::access>(*mask_reads.back()));
  }
  for (auto& c : g.conditions)
    if (!ir::interval{c.lo, c.hi - 1}.contains(ir::bounds(c.index, r)) && !implied(c, factors))
      body = times(indicator(c.index, c.lo, c.hi), body);
  std::vector<ir::iterator> summation = g.summation;
  detail::join_split(summation, body);
  if (!detail::tighten(summation, body)) return ir::make_scope(g.element, {}, ir::make_constant(0));
  // an iterator left with one value is that value
  std::map<std::string, ir::affine> single;
  for (auto& w : summation)
    if (w.extent() == 1) single[w.name] = ir::affine(w.lo);
  std::erase_if(summation, [](const ir::iterator& w) { return w.extent() == 1; });
  ir::ranges left;
  left.add(g.element);
  left.add(summation);
  if (!single.empty()) body = derive::substitute(body, single, left);
  return ir::make_scope(g.element, std::move(summation), std::move(body));
}

}  // namespace ein::grad
