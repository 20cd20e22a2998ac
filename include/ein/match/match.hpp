// Operator matching (EinNet §5.1): which library operators compute a scope, with their
// attributes; expression distance; layout bridges for iterators that only group differently.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/match/all.hpp"
#include "ein/match/eop.hpp"
#include "ein/match/table.hpp"

namespace ein::match {

/// The instances of one operator that compute `s` (analyzed as `a`), one per tensor mapping
/// whose attributes infer (duplicates removed).
inline std::vector<instance> match(const ir::scope& s, const scope_analysis& a,
                                   const operator_def& op) {
  std::vector<instance> out;
  for (auto& b : bindings(s, a, op))
    if (auto i = op.infer(b)) out.push_back(std::move(*i));
  if (out.size() > 1) {
    std::set<std::string> seen;
    std::erase_if(out, [&](const instance& i) { return !seen.insert(i.str()).second; });
  }
  return out;
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

/// Expression distance to an operator (EinNet §6.1): over the tensor mappings that classify,
/// the fewest mismatched iterators, Σ over columns |scope iterators − operator iterators|
/// (columns of any rank never mismatch).
/// Nothing when no mapping classifies (an iterator in a place the operator has none).
inline std::optional<int> distance(const ir::scope& s, const operator_def& op) {
  std::optional<int> best;
  for (auto& b : bindings(s, op)) {
    int d = 0;
    for (std::size_t c = 0; c < op.columns.size(); ++c)
      if (!op.columns[c].any_rank)
        d += std::abs(static_cast<int>(b.columns[c].size()) -
                      static_cast<int>(op.columns[c].iterators.size()));
    if (!best || d < *best) best = d;
  }
  return best;
}

/// A match reached through layout eOperators (EinNet §6.1, equations 2–3): when a scope's
/// iterators fall in the right columns of a GEMM but a column's iterators are not flattenable
/// (strides not nested, or padding read), operands are first copied into tensors whose
/// dimensions are exactly the operator's groups, and the output may be produced in the group
/// order and copied back into the scope's traversal order.
///   relayouts[t] = L_{b..., m..., k...} A[original index]   (inputs; order (b, k, n) for B)
///   core         = L_{b..., m..., n...} Σ_{k...} alpha · relayouts[0][...] · relayouts[1][...]
///   result       = core, or L_{source traversal} core[b..., m..., n...]  (output relayout)
/// `result` equals the source; `op` is the match of `core`.
struct bridge {
  std::vector<ir::scope_ptr> relayouts;  // the input relayouts (nested in `core`), may be empty
  ir::scope_ptr core;
  instance op;
  ir::scope_ptr result;
  bool output_relayout = false;
};

namespace detail {

// The declared iterator of `s` named n.
inline ir::iterator declared(const ir::scope& s, const std::string& n) {
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list)
      if (i.name == n) return i;
  throw internal_error("no iterator " + n);
}

// Extent-1 iterators of `s` that an access reads (they stay iterators of the relayout).
inline std::vector<std::string> unit_iterators(const ir::scope& s, const ir::access& a) {
  std::set<std::string> used;
  for (auto& e : a.index) e.collect_iterators(used);
  std::vector<std::string> out;
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list)
      if (i.extent() == 1 && used.count(i.name)) out.push_back(i.name);
  return out;
}

inline std::vector<std::string> concat(
    std::initializer_list<const std::vector<std::string>*> parts) {
  std::vector<std::string> r;
  for (auto* p : parts) r.insert(r.end(), p->begin(), p->end());
  return r;
}

// Builds the bridge for one binding of a GEMM operator, relayouting the operands in `mask`
// (bit 0: A, bit 1: B, bit 2: output).
inline std::optional<bridge> gemm_bridge(const ir::scope& s, const binding& b, unsigned mask) {
  static const std::vector<std::string> none;
  bool batched = b.op->kind == op_kind::batch_matmul;
  auto& bi = batched ? b.column_of("b") : none;
  auto &mi = b.column_of("m"), &ni = b.column_of("n"), &ki = b.column_of("k");
  std::vector<std::string> order[2] = {concat({&bi, &mi, &ki}), concat({&bi, &ki, &ni})};
  bridge r;
  ir::expr body;
  for (int t = 0; t < 2; ++t) {
    const ir::access& a = *b.in[t].node;
    ir::expr operand;
    if (mask & (1u << t)) {
      auto iters = order[t];
      for (auto& u : unit_iterators(s, a)) iters.push_back(u);
      std::vector<ir::iterator> trav;
      std::vector<ir::affine> index;
      for (auto& n : iters) trav.push_back(declared(s, n)), index.push_back(ir::idx(n));
      auto relayout = ir::make_scope(trav, {}, std::make_shared<const ir::node>(a));
      r.relayouts.push_back(relayout);
      operand = ir::make_access(relayout, index);
    } else {
      operand = std::make_shared<const ir::node>(a);
    }
    body = body ? body * operand : operand;
  }
  if (b.alpha != 1) body = ir::make_constant(b.alpha) * body;
  std::vector<ir::iterator> trav;
  if (mask & 4u) {
    for (auto& n : concat({&bi, &mi, &ni})) trav.push_back(declared(s, n));
    for (auto& i : s.traversal)
      if (i.extent() == 1) trav.push_back(i);
    if (trav == s.traversal) return std::nullopt;  // already in group order
  } else {
    trav = s.traversal;
  }
  r.core = ir::make_scope(trav, s.summation, body);
  auto found = match(*r.core, *b.op);
  if (found.empty()) return std::nullopt;
  r.op = found.front();
  r.output_relayout = (mask & 4u) != 0;
  if (r.output_relayout) {
    std::vector<ir::affine> index;
    for (auto& i : trav) index.push_back(ir::idx(i.name));
    r.result = ir::make_scope(s.traversal, {}, ir::make_access(r.core, index));
  } else {
    r.result = r.core;
  }
  return r;
}

}  // namespace detail

/// Bridges to Matmul or BatchMatmul for a scope that matches neither directly but whose
/// iterators all fall in their columns: per operator, the bridge with the fewest relayouts
/// (over every tensor mapping; inputs are preferred to the output).
inline std::vector<bridge> bridges(const ir::scope& s) {
  std::vector<bridge> out;
  auto a = analyze(s);
  for (auto& op : operator_table()) {
    if (op.kind != op_kind::matmul && op.kind != op_kind::batch_matmul) continue;
    auto all = bindings(s, a, op);
    if (all.empty() || !match(s, a, op).empty()) continue;
    bool found = false;
    for (unsigned mask : {1u, 2u, 4u, 3u, 5u, 6u, 7u}) {
      for (auto& b : all)
        if (auto r = detail::gemm_bridge(s, b, mask)) {
          out.push_back(std::move(*r));
          found = true;
          break;
        }
      if (found) break;
    }
  }
  return out;
}

}  // namespace ein::match
