// Summation splitting (EinNet Table 1, §4.1): part of a summation moves into a new nested scope.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

namespace detail {

// The subsets of k summation iterators that go inside (bit i set: iterator i): every non-empty
// proper subset when k ≤ 6, else each single iterator and each complement of one.
inline std::vector<std::uint64_t> inner_summations(std::size_t k) {
  std::vector<std::uint64_t> sets;
  if (k <= 6) {
    for (std::uint64_t m = 1; m + 1 < (std::uint64_t{1} << k); ++m) sets.push_back(m);
  } else {
    std::uint64_t all = (std::uint64_t{1} << k) - 1;
    for (std::size_t i = 0; i < k; ++i) sets.push_back(std::uint64_t{1} << i);
    for (std::size_t i = 0; i < k; ++i) sets.push_back(all & ~(std::uint64_t{1} << i));
  }
  return sets;
}

}  // namespace detail

/// Summation splitting:
///
///     L_x Σ_{s1,s2} f(T[τ(x,s1,s2)])  ⇒  L_x Σ_{s1} {L_{s1,x} Σ_{s2} f(T[τ(x,s1,s2)])}[s1, x]
///
/// The new inner scope instantiates the partial sums over s2 for every (s1, x); the outer sums it
/// over s1. Its traversal order (a layout choice) is s1 in summation order, then x in traversal
/// order, as in EinNet Figure 5 (`{L_{r,s,h,w,f} Σ_c ...}`).
///
/// @pre the scope has at least two summation iterators; s2 is a non-empty proper subset of them.
///      The rewrite is always legal: a finite sum splits into nested sums, and every point
///      (s1, x) the outer reads lies in the inner box (the inner box is exactly S1 × X). A max
///      (min) splits into a max of maxes the same way: the inner leaves out the points the
///      source left out (its body is the source's), the outer leaves none out (its one read is
///      inside), and an inner element with no point left is -inf, which changes no max
///      (docs/decisions/0008).
/// Candidates: every s2 (2^k − 2 of them) when k ≤ 6 summation iterators, else each single
/// iterator and each complement of one (2k). At every position.
///
/// Example, as printed (step `split_summation(at /: inner Σ {l}, outer Σ {k})`):
///     L_{i:[0,2)} Σ_{k:[0,3), l:[0,4)} A[i, k, l]
///       → L_{i:[0,2)} Σ_{k:[0,3)} {L_{k:[0,3), i:[0,2)} Σ_{l:[0,4)} A[i, k, l]}[k, i]
inline std::vector<candidate> split_summation(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    const auto& sum = s->summation;
    std::size_t k = sum.size();
    if (k < 2) return;
    for (auto m : detail::inner_summations(k)) {
      std::vector<ir::iterator> s1, s2;
      for (std::size_t i = 0; i < k; ++i) ((m >> i) & 1 ? s2 : s1).push_back(sum[i]);
      std::vector<ir::iterator> inner_traversal = s1;
      inner_traversal.insert(inner_traversal.end(), s->traversal.begin(), s->traversal.end());
      std::vector<ir::affine> index;
      for (auto& i : inner_traversal) index.push_back(ir::idx(i.name));
      auto inner = ir::make_scope(std::move(inner_traversal), s2, s->body, s->reduce);
      std::vector<std::string> inner_names, outer_names;
      for (auto& i : s2) inner_names.push_back(i.name);
      for (auto& i : s1) outer_names.push_back(i.name);
      step how{"split_summation", at, {{"inner Σ", std::move(inner_names)}, {"outer Σ", std::move(outer_names)}}};
      auto outer = ir::make_scope(s->traversal, std::move(s1),
                                  ir::make_access(std::move(inner), std::move(index)), s->reduce);
      out.push_back({replace_at(source, at, outer), std::move(how)});
    }
  });
  return out;
}

}  // namespace ein::derive
