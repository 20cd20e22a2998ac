// Joining an addition of two contractions that share an operand (a LoRA adapter beside its layer)
// with its producers, so that one search can merge the two sums into one (derive::merge_summation).
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/all.hpp"
#include "ein/derive/fuse_expression.hpp"
#include "ein/derive/merge_summation.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/program_edit.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/ir/reads.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/program/join_linear.hpp"
#include "ein/search/program/merge_program.hpp"

namespace ein::search {

namespace detail {

// The two definitions `y`'s body adds or subtracts, `P1[Φ] ± P2[Φ]` read at one index; nothing
// otherwise.
inline std::optional<std::pair<std::string, std::string>> added_definitions(const ir::definition& y,
                                                                            const ir::program& p) {
  auto* b = std::get_if<ir::binary>(&*y.value->body);
  if (!b || (b->op != ir::binary_op::add && b->op != ir::binary_op::sub)) return std::nullopt;
  auto* l = std::get_if<ir::access>(&*b->lhs);
  auto* r = std::get_if<ir::access>(&*b->rhs);
  if (!l || !r || l->index != r->index) return std::nullopt;
  auto *tl = std::get_if<ir::tensor>(&l->source), *tr = std::get_if<ir::tensor>(&r->source);
  if (!tl || !tr || tl->name == tr->name || tl->role != ir::tensor_role::definition ||
      tr->role != ir::tensor_role::definition || !p.find_definition(tl->name) ||
      !p.find_definition(tr->name))
    return std::nullopt;
  return std::pair{tl->name, tr->name};
}

// True when definition `d` can be inlined into `y` for summation merging: a linear contraction (a
// sum with a summation, nothing non-linear on the way) of y's element type that reads not only
// weights, read by y alone and no output.
inline bool joinable_contraction(const ir::program& p, const ir::definition& d, const ir::definition& y,
                                 const std::set<std::string>& weight_only) {
  return !d.value->summation.empty() && linear(*d.value) && d.type == y.type && !weight_only.count(d.name) &&
         derive::detail::readers(p, d.name).size() == 1 &&
         std::find(p.outputs.begin(), p.outputs.end(), d.name) == p.outputs.end();
}

// `p` with definition `name` inlined into its one reader (derive::fuse_expression), the step
// appended to `taken`; nothing where fusion does not apply.
inline std::optional<ir::program> fused(const ir::program& p, const std::string& name, std::vector<derive::step>& taken) {
  for (auto& c : derive::apply(derive::program_rule_named("fuse_expression"), p)) {
    auto* d = c.how.get<std::string>("definition");
    if (!d || *d != name) continue;
    taken.push_back(c.how);
    return std::move(c.result);
  }
  return std::nullopt;
}

// The cheapest multiply-adds (work, weight transforms counted as none) among the summation merges
// of `s`, directly or after one traversal merging; nothing where none applies.
inline std::optional<double> merged_work(const ir::scope_ptr& s, const std::set<std::string>& weights) {
  std::optional<double> best;
  auto consider = [&](const ir::scope_ptr& e) {
    for (auto& c : derive::apply(derive::intra_rule_named("merge_summation"), e)) {
      double w = work(c.result, weights);
      if (!best || w < *best) best = w;
    }
  };
  consider(s);
  for (auto& m : derive::apply(derive::intra_rule_named("merge_traversal"), s)) consider(m.result);
  return best;
}

// `p` with the addition `y` joined with its parts, and each part's own contraction that the part
// alone reads, where the joined definition can merge its sums for fewer multiply-adds than the
// parts as written (`weights`: what a weight transform computes from); the fusions appended to
// `taken`. Nothing where the join does not apply or gives nothing.
inline std::optional<ir::program> joined_addition(const ir::program& p, const ir::definition& y,
                                                  const std::set<std::string>& weight_only,
                                                  const std::set<std::string>& weights, std::vector<derive::step>& taken) {
  auto added = added_definitions(y, p);
  if (!added) return std::nullopt;
  std::vector<const ir::definition*> parts{p.find_definition(added->first), p.find_definition(added->second)};
  for (auto* d : parts)
    if (!joinable_contraction(p, *d, y, weight_only)) return std::nullopt;
  for (std::size_t i = 0; i < 2; ++i)
    for (auto& t : ir::tensors_read(parts[i]->value->body, ir::depth::top_level))
      if (auto* d = p.find_definition(t.name); d && joinable_contraction(p, *d, *parts[i], weight_only)) parts.push_back(d);
  double written = 0;
  for (auto* d : parts) written += work(d->value, weights);
  std::optional<ir::program> q = p;
  for (auto* d : parts)
    if (q) q = fused(*q, d->name, taken);
  if (!q) return std::nullopt;
  auto merged = merged_work(q->find_definition(y.name)->value, weights);
  if (!merged || *merged >= written * (1 - 1e-9)) return std::nullopt;
  return q;
}

}  // namespace detail

/// `p` with each addition of two contractions joined with them, where one search can then merge
/// the two sums into one (derive::merge_summation) for fewer multiply-adds: a definition
/// `y = P1[Φ] ± P2[Φ]` whose P1 and P2 are linear contractions that y alone reads (no outputs, one
/// element type, reading not only weights) takes both in (derive::fuse_expression), and with
/// them each such contraction that they alone read (one level: a LoRA adapter's `x·Aᵀ`). The
/// join is kept where summation merging applies to the joined definition, directly or after one
/// traversal merging, with fewer multiply-adds than the parts as written (detail::work, a weight
/// transform's counted as none), and the program as written, priced as a build with capabilities
/// `caps` runs it (program_seconds), gets no dearer. Every other addition stays a boundary
/// (decision 0013: joining every linear step multiplies the searches' states). Each fusion taken
/// is appended to `steps` when given.
/// Example: `h = x·Aᵀ`, `low = h·Bᵀ`, `base = x·Wᵀ`, `y = base + low` ⇒
///   `y = L_{m,o} {L Σ_i x·W}[m,o] + {L Σ_q {L Σ_i x·A}[m,q]·B}[m,o]`, which one search turns into
///   `L_{m,o} Σ_i x[m,i]·{W + B·A}[i,o]` (docs/discoveries.md, entry 3).
inline ir::program join_addition(ir::program p, const cost::model& model, const ein::plan::capabilities& caps,
                                 std::vector<derive::step>* steps = nullptr) {
  auto propose = [](const ir::program& current, const std::set<std::string>& weight_only, const std::set<std::string>& weights,
                    auto& take) {
    for (auto& y : current.definitions) {
      std::vector<derive::step> taken;
      if (auto q = detail::joined_addition(current, y, weight_only, weights, taken); q && take(std::move(*q), taken)) return;
    }
  };
  return detail::join_while_no_dearer(std::move(p), model, caps, steps, propose);
}

}  // namespace ein::search
