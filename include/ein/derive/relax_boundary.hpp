// Boundary relaxing (EinNet Table 1, §4.1): enlarge ranges over a region where the body is zero.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ein/derive/padding.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"
#include "ein/derive/split_variable.hpp"

namespace ein::derive {

namespace detail {

// The candidates enlarging `its` to `wide` one iterator at a time and all at once, each kept only
// when the body is 0 on the added points (analysed over the enlarged box); their steps are at
// `at`, the changed ranges under the parameter name `which` ("" traversal, "Σ" summation).
template <class Make>
void relax_each(const std::vector<ir::iterator>& its, const std::vector<ir::iterator>& wide,
                const ir::scope& s, const path& at, std::string_view which, Make&& make,
                std::vector<candidate>& out) {
  auto legal = [&](const std::vector<ir::iterator>& to) {
    ranges r(s);
    r.add(to);
    for (std::size_t d = 0; d < its.size(); ++d)
      if (to[d] != its[d] && !values(its[d]).contains(nonzero_values(s.body, its[d].name, r)))
        return false;
    return true;
  };
  auto how = [&](std::vector<range_change> changes) {
    return step{"relax_boundary", at, {{which, std::move(changes)}}};
  };
  std::vector<std::size_t> grown;
  for (std::size_t d = 0; d < its.size(); ++d) {
    if (wide[d] == its[d]) continue;
    std::vector<ir::iterator> one = its;
    one[d] = wide[d];
    if (!legal(one)) continue;
    grown.push_back(d);
    out.push_back({make(std::move(one)), how({{its[d], wide[d]}})});
  }
  if (grown.size() < 2) return;
  std::vector<ir::iterator> all = its;
  std::vector<range_change> changes;
  for (auto d : grown) {
    all[d] = wide[d];
    changes.push_back({its[d], wide[d]});
  }
  if (legal(all)) out.push_back({make(std::move(all)), how(std::move(changes))});
}

}  // namespace detail

/// Boundary relaxing:
///
///     L_x^{X} Σ_y^{Y} f  ⇒  L_x^{X'} Σ_y^{Y'} f     (X ⊂ X', Y ⊂ Y', f = 0 on the added points)
///
/// The inverse of tighten_boundary; it buys regular shapes with redundant work on zeros.
/// - Traversal ranges of a nested scope grow to the bounding box of the indices its reader (the
///   enclosing scope, every access to that same scope) reads it with: the common box of EinNet
///   Figure 5 (E4). Before, reads of the added points gave 0 by padding; after, they give the body,
///   so the rule needs the body to be 0 there.
/// - Summation ranges of prime extent p, min_relaxed_extent ≤ p < max_split_extent, grow by one
///   at the top, to the next size with a proper divisor (split_size: Conv5x5 → Conv6x6, EinNet
///   Figure 6); the added terms must be 0 — for `A[h + r − 2]·K[r]` with K of extent 5, the term
///   r = 5 reads K in its padding. Composite extents already split, 3 → 4 adds too much
///   redundant work, and long sums (channels) gain nothing: none of them grows.
/// @pre the body is 0 on every added point, for every value of the other iterators over the
///      enlarged box (checked by nonzero_values); a top-level traversal (the output) never changes.
/// @pre no max or min is involved: neither the scope whose summation grows nor the nested scope
///      whose traversal grows nor its reader. A max leaves out a point that reads outside a box
///      rather than reading 0, so the points a relaxed range adds (and the reads that fall inside
///      a grown box) would change it; a nested max holds -inf, not 0, where nothing is left.
/// Candidates: each iterator that can grow, and (when several can) all of them at once.
///
/// Example, as printed (A of shape [5]; step `relax_boundary(at /0: t [0,5) → [-1,6))`):
///     L_{i:[0,7)} {L_{t:[0,5)} relu(A[t])}[i - 1]
///       → L_{i:[0,7)} {L_{t:[-1,6)} relu(A[t])}[i - 1]
inline std::vector<candidate> relax_boundary(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    if (s->reduce != ir::reduction::sum) return;
    ranges r(*s);
    // the nested scopes this scope reads: each with the path of its first access and the
    // bounding box of all its reads
    struct reads {
      ir::scope_ptr scope;
      path where;
      std::vector<interval> box;
    };
    std::vector<reads> nested;
    std::uint32_t ordinal = 0;
    for_each_access(s->body, [&](const ir::access& a) {
      auto* n = std::get_if<ir::scope_ptr>(&a.source);
      if (!n || (*n)->reduce != ir::reduction::sum) return;
      std::size_t i = 0;
      while (i < nested.size() && nested[i].scope != *n) ++i;
      if (i == nested.size()) {
        path where = at;
        where.push_back(ordinal);
        nested.push_back({*n, std::move(where), std::vector<interval>(a.index.size())});
      }
      ++ordinal;
      for (std::size_t d = 0; d < a.index.size(); ++d)
        nested[i].box[d] = hull(nested[i].box[d], bounds(a.index[d], r));
    });
    for (auto& [n, where, box] : nested) {
      std::vector<ir::iterator> wide = n->traversal;
      for (std::size_t d = 0; d < wide.size(); ++d)
        if (!box[d].empty()) wide[d] = as_iterator(wide[d].name, hull(values(wide[d]), box[d]));
      // every access of this scope to n reads the relaxed scope
      auto make = [&, n = n](std::vector<ir::iterator> t) {
        auto relaxed = ir::make_scope(std::move(t), n->summation, n->body);
        ir::expr body = map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
          auto* m = std::get_if<ir::scope_ptr>(&a.source);
          return m && *m == n ? ir::make_access(relaxed, a.index) : nullptr;
        });
        return replace_at(source, at, with_body(*s, std::move(body)));
      };
      detail::relax_each(n->traversal, wide, *n, where, "", make, out);
    }
    std::vector<ir::iterator> divisible = s->summation;
    for (auto& y : divisible)
      if (auto m = split_size(y.extent()); m > y.extent()) y.hi = y.lo + m;
    detail::relax_each(s->summation, divisible, *s, at, "Σ", [&](std::vector<ir::iterator> y) {
      return replace_at(source, at, ir::make_scope(s->traversal, std::move(y), s->body));
    }, out);
  });
  return out;
}

}  // namespace ein::derive
