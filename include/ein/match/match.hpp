// Operator matching (EinNet §5.1): which library operators of the table compute a scope, with
// their attributes.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ein/match/all.hpp"
#include "ein/match/eop.hpp"
#include "ein/match/table.hpp"

namespace ein::match {

/// The instances of `op` from a scope's bindings to it (`all`, what bindings() gives), one per
/// tensor mapping whose attributes infer (duplicates removed).
inline std::vector<instance> match(const operator_def& op, const std::vector<binding>& all) {
  std::vector<instance> out;
  for (auto& b : all)
    if (auto i = op.infer(b)) out.push_back(std::move(*i));
  if (out.size() > 1) {
    std::set<std::string> seen;
    std::erase_if(out, [&](const instance& i) { return !seen.insert(i.str()).second; });
  }
  return out;
}

/// The instances of one operator that compute `s` (analyzed as `a`).
inline std::vector<instance> match(const ir::scope& s, const scope_analysis& a,
                                   const operator_def& op) {
  return match(op, bindings(s, a, op));
}

/// The instances of one operator that compute `s`.
/// @pre the body of `s` reads nested scopes only as whole tensors (they are operands here).
inline std::vector<instance> match(const ir::scope& s, const operator_def& op) {
  return match(s, analyze(s), op);
}

/// Every operator of the table that computes `s`, in table order.
/// Example: L_{i,j} Σ_k A[k, i]·B[j, k] gives one matmul with A^T and B^T;
/// L_{u,v,w} Σ_x X[u, 0, v, x + 1]·Y[u − 1, u, x, w] (Figure 8b) gives batch_matmul.
inline std::vector<instance> match(const ir::scope& s) {
  auto a = analyze(s);
  std::vector<instance> out;
  for (auto& op : operator_table())
    for (auto& i : match(s, a, op)) out.push_back(std::move(i));
  return out;
}

}  // namespace ein::match
