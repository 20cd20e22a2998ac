// Boundary tightening (EinNet Table 1, §4.1): shrink ranges to where the body may be non-zero.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ein/derive/padding.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// One candidate per iterator of `its` whose range can shrink, plus one shrinking all of them;
// their steps are at `at`, the changed ranges under the parameter name `which` ("" traversal,
// "Σ" summation). `make` builds the rewritten scope from the new iterator list.
template <class Make>
void tighten_each(const std::vector<ir::iterator>& its, const ir::scope& s, const ranges& r,
                  const path& at, std::string_view which, Make&& make, std::vector<candidate>& out) {
  auto how = [&](std::vector<range_change> changes) {
    return step{"tighten_boundary", at, {{which, std::move(changes)}}};
  };
  std::vector<ir::iterator> all = its;
  std::vector<range_change> changes;
  for (std::size_t d = 0; d < its.size(); ++d) {
    interval v = nonzero_values(s.body, its[d].name, r);
    // an always-zero body is left alone: an empty range is not a scope
    if (v.empty() || v == values(its[d])) continue;
    ir::iterator narrow = as_iterator(its[d].name, v);
    std::vector<ir::iterator> one = its;
    one[d] = narrow;
    all[d] = narrow;
    out.push_back({make(std::move(one)), how({{its[d], narrow}})});
    changes.push_back({its[d], narrow});
  }
  if (changes.size() < 2) return;
  out.push_back({make(std::move(all)), how(std::move(changes))});
}

}  // namespace detail

/// Boundary tightening:
///
///     L_x^{X'} Σ_y^{Y'} f  ⇒  L_x^{X} Σ_y^{Y} f     (X ⊂ X', Y ⊂ Y', f = 0 on the removed points)
///
/// Constant propagation through padding (see nonzero_values) finds, for each iterator, the
/// smallest interval outside which the body is 0 for every input; the range shrinks to it.
/// - Summation ranges, at every scope: the removed terms are 0.
/// - Traversal ranges, of nested scopes only: readers outside the smaller box read 0 by the
///   padding rule, which is what the removed elements held, so the nested scope is the same
///   function on all of Z^n. (A top-level traversal is the output's shape and never changes.)
/// @pre the body is 0 outside the new range for every value of the other iterators (checked by
///      nonzero_values); the new range is non-empty and strictly smaller.
/// @pre no max or min is involved: the scope is a sum, and so is the reader of a nested scope
///      whose traversal shrinks. A max leaves out the points whose body reads outside a box:
///      removing its terms, or moving a reader's reads outside a shrunk box, changes it.
/// Candidates: each iterator that can shrink, and (when several can) all of them at once.
///
/// Example, as printed (A of shape [5]; step `tighten_boundary(at /0: t [-1,6) → [0,5))`; EinNet
/// Figure 5's E5 → E6 is the same on t1 and t2):
///     L_{i:[0,7)} {L_{t:[-1,6)} relu(A[t])}[i - 1]
///       → L_{i:[0,7)} {L_{t:[0,5)} relu(A[t])}[i - 1]
inline std::vector<candidate> tighten_boundary(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    if (s->reduce != ir::reduction::sum) return;
    ranges r(*s);
    if (!at.empty() && reader_of(source, at)->reduce == ir::reduction::sum)
      detail::tighten_each(s->traversal, *s, r, at, "", [&](std::vector<ir::iterator> t) {
        return replace_at(source, at, ir::make_scope(std::move(t), s->summation, s->body));
      }, out);
    detail::tighten_each(s->summation, *s, r, at, "Σ", [&](std::vector<ir::iterator> y) {
      return replace_at(source, at, ir::make_scope(s->traversal, std::move(y), s->body));
    }, out);
  });
  return out;
}

}  // namespace ein::derive
