// Expression distance to an operator (EinNet §6.1), and the product signature that rules an
// operator out before any analysis.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/match/all.hpp"
#include "ein/match/table.hpp"

namespace ein::match {

/// What decides whether a scope's tensor mappings classify for a product operator (steps 1–2),
/// without the flattened views: per iterator of extent > 1 (traversal, then summation), which
/// factors of the product body read it once normalized, and whether the output does.
struct product_signature {
  struct iterator_use {
    unsigned reads = 0;  // bit t: factor t's index uses the iterator
    bool out = false;
  };
  std::size_t factors = 0;
  std::vector<iterator_use> iterators;  // empty when the factors are too many to track
};

/// The product signature of `s`; nothing when it has no product body to match (no body, an empty
/// box, or a body that is not a product), and then no product operator classifies it.
inline std::optional<product_signature> signature(const ir::scope& s) {
  if (!s.body) return std::nullopt;
  std::map<std::string, ir::affine> shift;  // what analyze's normalizer changes
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list) {
      if (i.extent() < 1) return std::nullopt;
      if (i.extent() == 1) shift[i.name] = ir::affine(i.lo);
      else if (i.lo != 0) shift[i.name] = ir::idx(i.name) + i.lo;
    }
  auto p = as_product(s.body);
  if (!p) return std::nullopt;
  product_signature sig;
  sig.factors = p->factors.size();
  if (sig.factors > 16) return sig;
  // the iterators each factor reads after normalization, as analyze's access_view collects them
  // (an iterator absent from `shift` is mapped to itself, which substitute leaves unchanged)
  std::vector<std::set<std::string>> used(sig.factors);
  for (std::size_t t = 0; t < sig.factors; ++t)
    for (auto& e : p->factors[t]->index) {
      if (shift.empty()) {
        e.collect_iterators(used[t]);
        continue;
      }
      std::set<std::string> raw;
      e.collect_iterators(raw);
      bool moved = std::any_of(raw.begin(), raw.end(), [&](auto& n) { return shift.count(n) != 0; });
      if (moved) e.substitute(shift).collect_iterators(used[t]);
      else used[t].insert(raw.begin(), raw.end());
    }
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list) {
      if (i.extent() <= 1) continue;
      product_signature::iterator_use u;
      u.out = list == &s.traversal;
      for (std::size_t t = 0; t < sig.factors; ++t)
        if (used[t].count(i.name)) u.reads |= 1u << t;
      sig.iterators.push_back(u);
    }
  return sig;
}

/// False only when no tensor mapping of a scope with signature `sig` classifies for `op`: then
/// distance is nothing and match and bridges are empty. Checks what classify checks (every
/// iterator in a column, required columns filled) for every order of the factors; true for
/// operators whose body is not a product, and when the signature does not track the iterators.
inline bool may_classify(const std::optional<product_signature>& sig, const operator_def& op) {
  if (op.body != body_kind::product) return true;
  if (!sig || sig->factors != op.roles.size()) return false;
  if (sig->factors > 16) return true;
  std::vector<std::size_t> perm(sig->factors);
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::vector<bool> filled(op.columns.size());
  do {
    std::fill(filled.begin(), filled.end(), false);
    bool placed = true;
    for (auto& u : sig->iterators) {
      unsigned mask = 0;  // input t of the mapping is factor perm[t]
      for (std::size_t t = 0; t < perm.size(); ++t)
        if ((u.reads >> perm[t]) & 1u) mask |= 1u << t;
      std::size_t c = 0;
      while (c < op.columns.size() && (op.columns[c].inputs != mask || op.columns[c].out != u.out)) ++c;
      if (c == op.columns.size()) {
        placed = false;
        break;
      }
      filled[c] = true;
    }
    for (std::size_t c = 0; placed && c < op.columns.size(); ++c)
      if (op.columns[c].required && !filled[c]) placed = false;
    if (placed) return true;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return false;
}

/// Expression distance to an operator (EinNet §6.1): over the tensor mappings that classify,
/// the fewest mismatched iterators, Σ over columns |scope iterators − operator iterators|
/// (columns of any rank never mismatch).
/// Nothing when no mapping classifies (an iterator in a place the operator has none).
/// `all`: the scope's bindings to `op` (what bindings() gives).
inline std::optional<int> distance(const operator_def& op, const std::vector<binding>& all) {
  std::optional<int> best;
  for (auto& b : all) {
    int d = 0;
    for (std::size_t c = 0; c < op.columns.size(); ++c)
      if (!op.columns[c].any_rank)
        d += std::abs(static_cast<int>(b.columns[c].size()) -
                      static_cast<int>(op.columns[c].iterators.size()));
    if (!best || d < *best) best = d;
  }
  return best;
}

inline std::optional<int> distance(const ir::scope& s, const scope_analysis& a,
                                   const operator_def& op) {
  return distance(op, bindings(s, a, op));
}

inline std::optional<int> distance(const ir::scope& s, const operator_def& op) {
  return distance(s, analyze(s), op);
}

}  // namespace ein::match
