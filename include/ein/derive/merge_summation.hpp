// Summation merging (distributivity over an addition): two sums added or subtracted, with a
// factor in common, become one sum of that factor times the sum of the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/factor_summation.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"

namespace ein::derive {

namespace detail {

// The nested scope `e` reads when it is an access to one that sums, else nullptr.
inline const ir::access* read_of_sum(const ir::expr& e) {
  auto* a = std::get_if<ir::access>(&*e);
  if (!a) return nullptr;
  auto* n = std::get_if<ir::scope_ptr>(&a->source);
  return n && (*n)->reduce == ir::reduction::sum && !(*n)->summation.empty() ? a : nullptr;
}

// True when `a` and `b` are the same ranges, one for one (names aside).
inline bool same_boxes(const std::vector<ir::iterator>& a, const std::vector<ir::iterator>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t d = 0; d < a.size(); ++d)
    if (a[d].lo != b[d].lo || a[d].hi != b[d].hi) return false;
  return true;
}

// The iterators of `groups`, in order, that `read` holds.
inline std::vector<ir::iterator> read_among(const std::set<std::string>& read,
                                            std::initializer_list<const std::vector<ir::iterator>*> groups) {
  std::vector<ir::iterator> v;
  for (auto* group : groups)
    for (auto& it : *group)
      if (read.count(it.name)) v.push_back(it);
  return v;
}

// `{L_v body}[v]`.
inline ir::expr scope_at_own_index(std::vector<ir::iterator> v, std::vector<ir::iterator> sum, ir::expr body) {
  std::vector<ir::affine> index;
  for (auto& it : v) index.push_back(ir::idx(it.name));
  return ir::make_access(ir::make_scope(std::move(v), std::move(sum), std::move(body)), std::move(index));
}

// Calls `f(map)` for every one-to-one map of `from` into `to` (map[d]: the position in `to` of
// from[d]) that pairs equal ranges.
template <class F>
void for_each_matching(const std::vector<ir::iterator>& from, const std::vector<ir::iterator>& to,
                       std::vector<std::size_t>& map, F&& f) {
  if (map.size() == from.size()) {
    f(static_cast<const std::vector<std::size_t>&>(map));
    return;
  }
  auto& it = from[map.size()];
  for (std::size_t d = 0; d < to.size(); ++d) {
    if (to[d].lo != it.lo || to[d].hi != it.hi || std::find(map.begin(), map.end(), d) != map.end()) continue;
    map.push_back(d);
    for_each_matching(from, to, map, f);
    map.pop_back();
  }
}

}  // namespace detail

/// The most summation iterators of a sum that summation merging maps the other sum's into (the
/// maps enumerated grow as its factorial).
inline constexpr std::size_t merge_summation_limit = 6;

/// Summation merging: where a scope's body adds (or subtracts) two sums n1, n2 read at the same
/// index over the same traversal box, whose bodies are products with a factor f in common, and
/// whose summations pair up by range except for iterators t of one of them (n2 below) that f does
/// not read, f leaves both:
///
///     L_x {L_z Σ_s f·g1}[Φ] ± {L_z' Σ_{s',t} f'·g2}[Φ]  ⇒  L_x {L_z Σ_s f·{L_v g1 ± {L_w Σ_t g2'}[w]}[v]}[Φ]
///
/// where g2' is g2 with z', s' renamed to z, s (position by position, s' by range, t to fresh
/// names where they clash) and f' = f once renamed; w lists the iterators of s, then of z, that
/// g2' reads, v those that g1 or the scope over t reads (like summation factoring's inner
/// scope); without t, g2' stands in place of `{L_w Σ_t g2'}[w]`. The sides may be either way
/// round. Where g1 and g2 read only weights, the inner scope is a weight transform: a LoRA
/// adapter `x·Wᵀ + (x·Aᵀ)·Bᵀ`, once traversal merging has joined the adapter's two sums
/// (`Σ_{q,i} x[m,i]·A[q,i]·B[o,q]`), becomes one product over `W + B·A`.
/// @pre both nested scopes are sums (a max does not distribute over `+`: max(a) + max(b) is not
///      max(a + b)) with a summation; they are read at the same index and have the same traversal
///      box, so a read lands inside both boxes or outside both (0 ± 0 = 0, which the merged scope,
///      over n1's box, reads too); each body is a product of two factors at least; v and w are
///      not empty; n2 has at most merge_summation_limit summation iterators. Legal by
///      distributivity: Σ_s f·g1 ± Σ_{s,t} f·g2 = Σ_s f·(g1 ± Σ_t g2) where f does not read t;
///      every read of a new scope at its own iterators lies in its box.
/// Candidates: for each pairing of summations, one per factor of n1 that n2 has too (compared as
/// printed). At every position; a scope whose body is not `±` of two sums costs one look.
///
/// Example, as printed (step `merge_summation(at /: common factor X[m, i])`):
///     L_{m:[0,2), o:[0,3)} {L_{m:[0,2), o:[0,3)} Σ_{i:[0,4)} X[m, i] * W[o, i]}[m, o] + {L_{a:[0,2), b:[0,3)} Σ_{j:[0,4)} X[a, j] * V[j, b]}[m, o]
///       → L_{m:[0,2), o:[0,3)} {L_{m:[0,2), o:[0,3)} Σ_{i:[0,4)} X[m, i] * {L_{i:[0,4), o:[0,3)} W[o, i] + V[i, o]}[i, o]}[m, o]
inline std::vector<candidate> merge_summation(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    auto* b = std::get_if<ir::binary>(&*s->body);
    if (!b || (b->op != ir::binary_op::add && b->op != ir::binary_op::sub)) return;
    auto *r1 = detail::read_of_sum(b->lhs), *r2 = detail::read_of_sum(b->rhs);
    if (!r1 || !r2 || r1->index != r2->index) return;
    // `n1` keeps its names and the whole of its summation; `n2` may have more, summed inside
    for (bool swapped : {false, true}) {
      auto& n1 = *std::get<ir::scope_ptr>((swapped ? r2 : r1)->source);
      auto& n2 = *std::get<ir::scope_ptr>((swapped ? r1 : r2)->source);
      if (swapped && n1.summation.size() == n2.summation.size()) return;  // the same pairings again
      if (!detail::same_boxes(n1.traversal, n2.traversal) || n1.summation.size() > n2.summation.size() ||
          n2.summation.size() > merge_summation_limit)
        continue;
      std::vector<ir::expr> f1;
      detail::product_factors(n1.body, f1);
      if (f1.size() < 2) continue;
      std::vector<std::size_t> map;
      detail::for_each_matching(n1.summation, n2.summation, map, [&](const std::vector<std::size_t>& pairs) {
        std::map<std::string, ir::affine> rename;
        for (std::size_t d = 0; d < n1.traversal.size(); ++d) rename.emplace(n2.traversal[d].name, ir::idx(n1.traversal[d].name));
        for (std::size_t d = 0; d < pairs.size(); ++d) rename.emplace(n2.summation[pairs[d]].name, ir::idx(n1.summation[d].name));
        auto taken = iterator_names(n1);
        for (auto& it : n2.summation) taken.push_back(it.name);
        std::vector<ir::iterator> t;
        for (std::size_t d = 0; d < n2.summation.size(); ++d) {
          if (std::find(pairs.begin(), pairs.end(), d) != pairs.end()) continue;
          auto it = n2.summation[d];
          auto mine = iterator_names(n1);
          if (std::find(mine.begin(), mine.end(), it.name) != mine.end()) {
            it.name = fresh_name(it.name, taken);
            taken.push_back(it.name);
          }
          rename.emplace(n2.summation[d].name, ir::idx(it.name));
          t.push_back(it);
        }
        ir::ranges box(n1);
        box.add(t);
        std::vector<ir::expr> f2;
        detail::product_factors(substitute(n2.body, rename, box), f2);
        if (f2.size() < 2) return;
        std::vector<std::string> printed2;
        for (auto& f : f2) printed2.push_back(ir::to_string(f));
        for (std::size_t i = 0; i < f1.size(); ++i) {
          auto printed = ir::to_string(f1[i]);
          auto j = static_cast<std::size_t>(std::find(printed2.begin(), printed2.end(), printed) - printed2.begin());
          if (j == f2.size()) continue;
          std::vector<ir::expr> g1 = f1, g2 = f2;
          g1.erase(g1.begin() + static_cast<std::ptrdiff_t>(i));
          g2.erase(g2.begin() + static_cast<std::ptrdiff_t>(j));
          ir::expr rest1 = detail::product_of(g1), rest2 = detail::product_of(g2);
          if (!t.empty()) {
            auto w = detail::read_among(ir::iterators_read(rest2), {&n1.summation, &n1.traversal});
            if (w.empty()) continue;  // a partial sum of one element is no kernel worth its launch
            rest2 = detail::scope_at_own_index(std::move(w), t, rest2);
          }
          auto sum = swapped ? ir::make_binary(b->op, rest2, rest1) : ir::make_binary(b->op, rest1, rest2);
          auto v = detail::read_among(ir::iterators_read(sum), {&n1.summation, &n1.traversal});
          if (v.empty()) continue;  // g1 ± g2 is one value: no partial sum to hold
          auto merged = ir::make_scope(n1.traversal, n1.summation, f1[i] * detail::scope_at_own_index(std::move(v), {}, sum));
          step how{"merge_summation", at, {{"common factor", f1[i]}}};
          std::vector<std::string> inner;
          for (auto& it : t) inner.push_back(it.name);
          if (!inner.empty()) how.parameters.push_back({"inner Σ", std::move(inner)});
          out.push_back({replace_at(source, at, with_body(*s, ir::make_access(merged, r1->index))), std::move(how)});
        }
      });
    }
  });
  return out;
}

}  // namespace ein::derive
