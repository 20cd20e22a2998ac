// Summation factoring (EinNet Table 1's summation splitting with distributivity): part of a
// summation moves into a new nested scope with only the factors that read it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/rule.hpp"
#include "ein/derive/split_summation.hpp"
#include "ein/ir/reads.hpp"

namespace ein::derive {

namespace detail {

// `factors` multiplied left to right; nullptr when there are none.
inline ir::expr product_of(const std::vector<ir::expr>& factors) {
  ir::expr r;
  for (auto& f : factors) r = r ? r * f : f;
  return r;
}

}  // namespace detail

/// Summation factoring: where a sum's body is a product, the factors h that read no iterator
/// of s2 stay outside the partial sum over s2:
///
///     L_x Σ_{s1,s2} h(x, s1) · g(x, s1, s2)  ⇒  L_x Σ_{s1} h(x, s1) · {L_v Σ_{s2} g}[v]
///
/// where v lists the iterators of s1, then of x (in their orders), that g reads: the inner scope
/// holds only what the partial sums depend on (with summation splitting alone, h would be
/// multiplied into every partial sum over the whole of s1 × x). This is how a chain of
/// contractions is reassociated: (A·B)·C, once traversal merging has joined the sums, becomes
/// A·(B·C).
/// @pre the scope is a sum (a max does not distribute over `*`) with at least two summation
///      iterators; s2 is a non-empty proper subset of them; the body is a product of two factors
///      at least, of which one at least (h) reads no iterator of s2 and one (g) reads some, and
///      v is not empty. Legal
///      by distributivity: Σ_{s2} h·g = h·Σ_{s2} g where h does not depend on s2; every read of
///      the inner scope at [v] lies in its box (v ranges over exactly that box), so padding adds
///      nothing; a factor that is a nested scope is a closed term read at its own index.
/// Candidates: every s2 as in split_summation (2^k − 2 when k ≤ 6, else 2k), those where some
/// factor stays outside. At every position.
///
/// Example, as printed (step `factor_summation(at /: inner Σ {j}, outer Σ {k})`):
///     L_{i:[0,4), l:[0,2)} Σ_{j:[0,3), k:[0,5)} A[i, k] * B[k, j] * C[j, l]
///       → L_{i:[0,4), l:[0,2)} Σ_{k:[0,5)} A[i, k] * {L_{k:[0,5), l:[0,2)} Σ_{j:[0,3)} B[k, j] * C[j, l]}[k, l]
inline std::vector<candidate> factor_summation(const ir::scope_ptr& source) {
  std::vector<candidate> out;
  for_each_position(source, [&](const ir::scope_ptr& s, const path& at) {
    const auto& sum = s->summation;
    std::size_t k = sum.size();
    if (k < 2 || s->reduce != ir::reduction::sum) return;
    std::vector<ir::expr> factors;
    detail::product_factors(s->body, factors);
    if (factors.size() < 2) return;
    std::vector<std::set<std::string>> reads;
    for (auto& f : factors) reads.push_back(ir::iterators_read(f));
    for (auto m : detail::inner_summations(k)) {
      std::vector<ir::iterator> s1, s2;
      for (std::size_t i = 0; i < k; ++i) ((m >> i) & 1 ? s2 : s1).push_back(sum[i]);
      std::vector<ir::expr> h, g;
      std::set<std::string> g_reads;
      for (std::size_t f = 0; f < factors.size(); ++f) {
        bool inner = false;
        for (auto& i : s2) inner = inner || reads[f].count(i.name);
        (inner ? g : h).push_back(factors[f]);
        if (inner) g_reads.insert(reads[f].begin(), reads[f].end());
      }
      if (h.empty() || g.empty()) continue;
      std::vector<ir::iterator> v;
      const std::vector<ir::iterator>* groups[] = {&s1, &s->traversal};
      for (auto* group : groups)
        for (auto& i : *group)
          if (g_reads.count(i.name)) v.push_back(i);
      if (v.empty()) continue;  // a partial sum of one element is no kernel worth its launch
      std::vector<ir::affine> index;
      for (auto& i : v) index.push_back(ir::idx(i.name));
      auto inner = ir::make_scope(std::move(v), s2, detail::product_of(g));
      std::vector<std::string> inner_names, outer_names;
      for (auto& i : s2) inner_names.push_back(i.name);
      for (auto& i : s1) outer_names.push_back(i.name);
      step how{"factor_summation", at, {{"inner Σ", std::move(inner_names)}, {"outer Σ", std::move(outer_names)}}};
      h.push_back(ir::make_access(std::move(inner), std::move(index)));
      auto outer = ir::make_scope(s->traversal, std::move(s1), detail::product_of(h));
      out.push_back({replace_at(source, at, outer), std::move(how)});
    }
  });
  return out;
}

}  // namespace ein::derive
