// Converging derivation (EinNet §6.1, OLLIE Algorithm 2 "guided derivation"): derivations toward
// one target operator, kept only when they bring the expression closer to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/match/bridge.hpp"
#include "ein/match/distance.hpp"
#include "ein/match/match.hpp"

namespace ein::search {

/// The compute-heavy operators of the table, the targets of converging derivation:
/// matmul, batch_matmul, conv2d, conv_transpose2d, g2bmm, gbmm (table order).
inline std::vector<const match::operator_def*> compute_targets() {
  std::vector<const match::operator_def*> r;
  for (auto& op : match::operator_table())
    if (op.kind != match::op_kind::elementwise) r.push_back(&op);
  return r;
}

/// A form of an expression in which the target operator computes one of its scopes, and how:
/// a `match` step at the scope the operator computes, a `bridge` step at the scope a bridge
/// replaces (with its relayouts), or a `bridgeable` step (the tree as it is, left for
/// post-optimization). Printed `match(at /0/0: operator matmul)`,
/// `bridge(at /0: operator g2bmm, input relayouts 2, output relayouts 0)`.
struct converged {
  ir::scope_ptr expr;
  derive::step how;
};

namespace detail {

// The distance of one scope to `op` (0: matches, directly or through a layout bridge; 1 + the
// expression distance otherwise), given its analysis; nothing when its mappings do not classify.
inline std::optional<int> scope_distance(const ir::scope& s, const match::scope_analysis& a,
                                         const match::operator_def& op) {
  auto all = match::bindings(s, a, op);
  auto d = match::distance(op, all);
  if (!d) return std::nullopt;
  if (!match::match(op, all).empty() || match::bridgeable(s, op, all)) return 0;
  return *d + 1;
}

// The same without an analysis at hand: a scope whose product signature rules `op` out needs none.
inline std::optional<int> scope_distance(const ir::scope& s, const match::operator_def& op) {
  if (!match::may_classify(match::signature(s), op)) return std::nullopt;
  return scope_distance(s, match::analyze(s), op);
}

}  // namespace detail

/// Distance of an expression tree to an operator, the measure converging derivation must
/// decrease: 0 when some scope of the tree is computed by `op` (directly, or through layout
/// bridges, EinNet §6.1 and equations 2–3); otherwise 1 + the least expression
/// distance (§6.1, mismatched iterators) over its scopes; nothing when no scope classifies.
/// Example: the inner scope of Figure 5's E4 with tightened bounds matches Matmul (0); Conv3x3's
/// E1 classifies for Matmul with h, w in m and r, s, c in k (distance 3) but does not flatten.
inline std::optional<int> tree_distance(const ir::scope_ptr& tree, const match::operator_def& op) {
  std::optional<int> best;
  derive::for_each_position(tree, [&](const ir::scope_ptr& s, const derive::path&) {
    if (best == 0) return;
    auto d = detail::scope_distance(*s, op);
    if (d && (!best || *d < *best)) best = d;
  });
  return best;
}

/// tree_distance with each scope's distance to each operator remembered, and the least over
/// the scopes under it: derived trees share most of their nested scopes with their parents (by
/// pointer), converging runs toward different operators meet the same trees, and a scope's
/// distance depends on it alone. A scope's product signature and analysis are computed once for
/// all operators. Keeps the scopes it has seen alive, so a remembered address is never reused.
class distance_memo {
 public:
  std::optional<int> operator()(const ir::scope_ptr& tree, const match::operator_def& op) {
    auto it = seen_.find(tree.get());
    if (it == seen_.end()) it = seen_.emplace(tree.get(), entry{tree, match::signature(*tree), {}, {}}).first;
    auto& e = it->second;
    for (auto& k : e.known)
      if (k.op == &op) return k.tree;
    // tree_distance's pre-order: this scope, then the nested ones, until one is at 0
    std::optional<int> best;
    if (match::may_classify(e.signature, op)) {
      if (!e.analysis) e.analysis = match::analyze(*tree);
      best = detail::scope_distance(*tree, *e.analysis, op);
    }
    derive::for_each_access(tree->body, [&](const ir::access& a) {
      auto* nested = std::get_if<ir::scope_ptr>(&a.source);
      if (!nested || best == 0) return;
      auto d = (*this)(*nested, op);
      if (d && (!best || *d < *best)) best = d;
    });
    e.known.push_back({&op, best});
    return best;
  }

 private:
  struct known_distance {
    const match::operator_def* op;
    std::optional<int> tree;  // tree_distance of the scope and what it nests
  };
  struct entry {
    ir::scope_ptr keep;
    std::optional<match::product_signature> signature;
    std::optional<match::scope_analysis> analysis;  // once some operator may classify it
    std::vector<known_distance> known;
  };
  std::unordered_map<const ir::scope*, entry> seen_;  // entries stay in place as it grows
};

/// What converging runs from one start toward different operators share: every tree's
/// candidates (rules are pure functions, so the runs derive the same trees, pointer for pointer,
/// and each is derived once), their canonical forms, computed only for the candidates some run
/// keeps (a candidate shares nested scopes with its tree, whose texts are computed once,
/// ir::canonical_memo), and scope distances (distance_memo). Serves one rule set. Keeps the trees
/// it has seen alive.
class converge_cache {
 public:
  /// One candidate of a tree and, once asked for, its canonical form.
  struct child {
    derive::candidate step;
    std::optional<std::string> form;
  };

  /// The candidates of every rule on `e`, in rule order, as `rules` give them.
  std::vector<child>& children(const ir::scope_ptr& e, std::span<const derive::rule> rules) {
    auto it = expanded_.find(e.get());
    if (it != expanded_.end()) return it->second.children;
    expansion x{e, {}};
    for (auto& r : rules)
      for (auto& c : derive::apply(r, e)) x.children.push_back({std::move(c), std::nullopt});
    return expanded_.emplace(e.get(), std::move(x)).first->second.children;
  }

  /// The canonical form of `c`, a candidate from children().
  const std::string& form(child& c) {
    if (!c.form) c.form = forms_(c.step.result);
    return *c.form;
  }

  std::optional<int> distance(const ir::scope_ptr& tree, const match::operator_def& op) {
    return distances_(tree, op);
  }

 private:
  struct expansion {
    ir::scope_ptr keep;
    std::vector<child> children;
  };
  std::unordered_map<const ir::scope*, expansion> expanded_;
  ir::canonical_memo forms_;
  distance_memo distances_;
};

/// The forms of `tree` in which `op` computes a scope: the tree itself when a scope matches
/// `op` directly, else the tree with a scope replaced by each bridge to `op`, and the tree
/// itself last.
inline std::vector<converged> matched_forms(const ir::scope_ptr& tree, const match::operator_def& op) {
  std::vector<converged> direct, bridged;
  std::string op_name = match::name(op.kind);
  derive::for_each_position(tree, [&](const ir::scope_ptr& s, const derive::path& at) {
    if (!match::may_classify(match::signature(*s), op)) return;
    auto all = match::bindings(*s, match::analyze(*s), op);
    if (!match::distance(op, all)) return;
    if (!match::match(op, all).empty()) {
      if (direct.empty()) direct.push_back({tree, {"match", at, {{"operator", op_name}}}});
      return;
    }
    for (auto& b : match::bridges(*s, op, all)) {
      bridged.push_back({derive::replace_at(tree, at, b.result),
                         {"bridge", at,
                          {{"operator", op_name},
                           {"input relayouts", static_cast<std::int64_t>(b.relayouts.size())},
                           {"output relayouts", std::int64_t{b.output_relayout}}}}});
    }
  });
  if (!direct.empty()) return direct;
  // the bridges read padding or relayout operands; post-optimization may instead tighten the
  // scope until the operator matches it directly, so the tree itself is a form too
  if (!bridged.empty()) bridged.push_back({tree, {"bridgeable", std::nullopt, {{"operator", op_name}}}});
  return bridged;
}

/// Counters of converging derivation.
struct converge_statistics {
  std::uint64_t states = 0;    // expressions derived and kept (distance decreased)
  std::uint64_t pruned = 0;    // candidates reducing the distance but already met (same form)
  std::uint64_t rejected = 0;  // candidates that did not reduce the distance
  std::uint64_t found = 0;     // matched forms reached
};

/// One expression reached by converging derivation, with its steps from where it started.
struct convergence {
  converged form;
  std::vector<derive::step> steps;
};

/// Converging derivation toward one operator (OLLIE Algorithm 2, GUIDEDDERIVE): depth-first from
/// `start`, each step applies every rule and keeps only the candidates whose tree_distance is
/// strictly below their parent's; a tree at distance 0 is reported (its matched_forms) and not
/// derived further. `visited` (canonical forms) is shared by the caller across starts, so an
/// expression is derived toward `op` once per search. Stops after `max_steps` steps from
/// `start` or at `deadline`.
class converger {
 public:
  using clock = std::chrono::steady_clock;

  /// `shared` (optional) is a cache the caller shares between the runs toward different
  /// operators from the same starts; without it the converger keeps its own.
  converger(const match::operator_def& op, std::span<const derive::rule> rules, int max_steps,
            clock::time_point deadline, std::unordered_set<std::string>& visited,
            converge_statistics& stats, converge_cache* shared = nullptr)
      : op_(op), rules_(rules), max_steps_(max_steps), deadline_(deadline), visited_(visited),
        stats_(stats), own_(shared ? nullptr : std::make_unique<converge_cache>()),
        cache_(shared ? *shared : *own_) {}

  /// The matched forms reachable from `start`, in discovery order.
  std::vector<convergence> run(const ir::scope_ptr& start) {
    std::vector<convergence> out;
    if (!visited_.insert(ir::canonical_string(*start)).second) return out;
    auto d = cache_.distance(start, op_);
    std::vector<const derive::step*> steps;
    descend(start, d, steps, out);
    return out;
  }

  bool timed_out() const { return timed_out_; }

 private:
  // `steps` point into the cache's candidate lists, which stay in place; they are copied only
  // into what is found.
  void descend(const ir::scope_ptr& e, std::optional<int> d, std::vector<const derive::step*>& steps,
               std::vector<convergence>& out) {
    if (d == 0) {
      for (auto& f : matched_forms(e, op_)) {
        ++stats_.found;
        std::vector<derive::step> path;
        for (auto* s : steps) path.push_back(*s);
        out.push_back({std::move(f), std::move(path)});
      }
      return;
    }
    if (static_cast<int>(steps.size()) >= max_steps_) return;
    if (clock::now() >= deadline_) {
      timed_out_ = true;
      return;
    }
    // the cache keeps the list in place while deeper levels add to it
    for (auto& child : cache_.children(e, rules_)) {
      auto& c = child.step;
      // nothing classifying is no distance at all; a first classifying form is progress.
      // A rejected form is not remembered: from another parent it may be progress. Distances
      // come before forms because most candidates are rejected and a distance is cheaper.
      auto dc = cache_.distance(c.result, op_);
      if (!dc || (d && *dc >= *d)) {
        ++stats_.rejected;
        continue;
      }
      if (!visited_.insert(cache_.form(child)).second) {
        ++stats_.pruned;
        continue;
      }
      ++stats_.states;
      steps.push_back(&c.how);
      descend(c.result, dc, steps, out);
      steps.pop_back();
    }
  }

  const match::operator_def& op_;
  std::span<const derive::rule> rules_;
  int max_steps_;
  clock::time_point deadline_;
  std::unordered_set<std::string>& visited_;
  converge_statistics& stats_;
  std::unique_ptr<converge_cache> own_;
  converge_cache& cache_;
  bool timed_out_ = false;
};

}  // namespace ein::search
