// Variable splitting of a summation iterator (EinNet §4.1, Figure 6): y = d·q + p over a divisor d.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ein/derive/padding.hpp"
#include "ein/derive/positions.hpp"
#include "ein/derive/ranges.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

/// The divisors d of n with 1 < d < n, ascending (none for a prime).
inline std::vector<std::int64_t> proper_divisors(std::int64_t n) {
  std::vector<std::int64_t> v;
  for (std::int64_t d = 2; d < n; ++d)
    if (n % d == 0) v.push_back(d);
  return v;
}

/// The largest extent split_variable splits, and relax_boundary grows: kernel-sized sums. Larger
/// sums (channels) have many divisors and nothing to gain from a split.
inline constexpr std::int64_t max_split_extent = 16;

/// The smallest prime extent that grows by one to get a divisor: one redundant term in five at
/// most (Conv5x5 → Conv6x6 computes 44% more products, Conv3x3 → Conv4x4 would compute 78% more).
inline constexpr std::int64_t min_relaxed_extent = 5;

/// The size a summation of extent n is split at: n when it has a proper divisor, n + 1 for a
/// prime from min_relaxed_extent on (the next size with one), 0 when it is not split (n < 4,
/// or past max_split_extent).
inline std::int64_t split_size(std::int64_t n) {
  if (n < 4 || n > max_split_extent) return 0;
  if (!proper_divisors(n).empty()) return n;
  return n >= min_relaxed_extent && n < max_split_extent ? n + 1 : 0;
}

namespace detail {

// True when some index of `e` reads `y` together with another iterator (h + r): the only place
// where part of y can later join that iterator (h + 3·q) — elsewhere a split only reshapes a sum.
inline bool read_beside(const ir::expr& e, const std::string& y) {
  bool found = false;
  for_each_access(e, [&](const ir::access& a) {
    for (auto& i : a.index) {
      auto used = i.iterators();
      found |= used.count(y) != 0 && used.size() >= 2;
    }
  });
  return found;
}

}  // namespace detail

/// Variable splitting of a summation iterator by a divisor of its extent (relaxed to the next
/// size that has one when the extent is prime):
///
///     L_x Σ_{y:[lo,lo+n), z} f(y)  ⇒  L_x Σ_{q:[0,m/d), p:[0,d), z} f(lo + d·q + p)
///
/// with m = split_size(n) (n when it has a proper divisor, n + 1 for a prime n ≥ 5) and 1 < d < m
/// dividing m.
/// Exact: (q, p) ↦ lo + d·q + p is a bijection from [0, m/d) × [0, d) onto [lo, lo + m), and the
/// terms y ∈ [lo + n, lo + m) that a relaxed sum adds are 0 — proven by constant propagation
/// through padding (nonzero_values over the relaxed box, as relax_boundary does), e.g. they read
/// a 5×5 kernel at r = 5. The split names a factor that no coefficient names yet: after r =
/// 3·r1 + r2, `h + r − 2` reads `h + 3*r1 + r2 − 2`, and summation splitting, variable
/// substitution (t1 = h + 3·r1) and a weight relayout turn a Conv5x5 into a Conv3x3 whose output
/// channels are (r1, s1, f), four times as many, plus an eOperator summing them at offsets 3·r1,
/// 3·s1 — EinNet Figure 6. A split by 2 (r = 2·r1 + r2) gives a Conv3x3 of dilation 2 instead.
/// Relaxing and splitting in one step keeps the derivation to Figure 6 short (the search explores
/// only a few steps); relax_boundary alone gives the Conv6x6 over a padded kernel.
/// @pre y is a summation iterator with split_size(n) ≠ 0, read by some index together with
///      another iterator; f is 0 on the added terms (checked). A max or min splits only where
///      nothing is relaxed: the bijection keeps every point and what its body reads, so the same
///      points are left out; an added term would be a point of its own, not a 0. The names q, p are fresh: y's
///      name followed by 1, 2, ... (`r` → `r1`, `r2`), in y's place in the summation.
/// Candidates, at every position: one per divisor d, splitting every such y that d divides — a
/// common factor, as EinNet relaxes "to a common constant" (Figure 6 splits r and s by 3
/// together; splitting one of them alone only adds states to the search): two on Conv5x5 (by 2,
/// by 3), none on Conv3x3 (3 is prime and too small to relax).
///
/// Example, as printed (W of shape [5]; step `split_variable(at /: Σ r = 3*r1 + r2, relaxed r [0,5)
/// → [0,6))`):
///     L_{i:[0,4)} Σ_{r:[0,5)} A[i + r] * W[r]
///       → L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * W[3*r1 + r2]
inline std::vector<candidate> split_variable(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    // the size each summation iterator splits at (its extent, or one more for a prime), and the
    // iterators each divisor splits
    std::vector<std::int64_t> size(s->summation.size(), 0);
    std::map<std::int64_t, std::vector<std::size_t>> by_divisor;
    for (std::size_t k = 0; k < s->summation.size(); ++k) {
      const auto& y = s->summation[k];
      size[k] = split_size(y.extent());
      if (size[k] == 0 || !detail::read_beside(s->body, y.name)) continue;
      for (auto d : proper_divisors(size[k])) by_divisor[d].push_back(k);
    }
    auto split = [&](std::int64_t d, const std::vector<std::size_t>& which) {
      // the relaxed terms must be 0, for every value of the other iterators over the relaxed box
      ranges wide(*s);
      for (auto k : which) {
        const auto& y = s->summation[k];
        wide.set(y.name, {y.lo, y.lo + size[k] - 1});
      }
      for (auto k : which) {
        const auto& y = s->summation[k];
        if (size[k] > y.extent() && (s->reduce != ir::reduction::sum ||
                                     !values(y).contains(nonzero_values(s->body, y.name, wide))))
          return;
      }
      std::vector<std::string> taken = iterator_names(*s);
      std::map<std::string, ir::affine> with;
      std::vector<ir::iterator> sum;
      std::vector<std::pair<std::string, ir::affine>> split_as;
      std::vector<range_change> relaxed;
      for (std::size_t k = 0; k < s->summation.size(); ++k) {
        const auto& y = s->summation[k];
        if (std::find(which.begin(), which.end(), k) == which.end()) {
          sum.push_back(y);
          continue;
        }
        std::string q = fresh_name(y.name, taken);
        taken.push_back(q);
        std::string p = fresh_name(y.name, taken);
        taken.push_back(p);
        sum.push_back({q, 0, size[k] / d});
        sum.push_back({p, 0, d});
        with.emplace(y.name, ir::idx(q) * d + ir::idx(p) + y.lo);
        split_as.emplace_back(y.name, with.at(y.name));
        if (size[k] > y.extent()) relaxed.push_back({y, {y.name, y.lo, y.lo + size[k]}});
      }
      step how{"split_variable", at, {{"Σ", std::move(split_as)}}};
      if (!relaxed.empty()) how.parameters.push_back({"relaxed", std::move(relaxed)});
      ranges r;
      r.add(s->traversal);
      r.add(sum);
      auto body = substitute(s->body, with, r);
      out.push_back({replace_at(source, at, ir::make_scope(s->traversal, std::move(sum), std::move(body), s->reduce)),
                     std::move(how)});
    };
    for (auto& [d, which] : by_divisor) split(d, which);
  });
  return out;
}

}  // namespace ein::derive
