// The distance-guided search of one expression (EinNet §6.1, Figure 10): explorative derivation
// to a small depth, converging derivation toward each compute-heavy operator from every state,
// instantiation, post-optimization, and the choice of the cheapest plan.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/tighten_boundary.hpp"
#include "ein/search/budget.hpp"
#include "ein/search/converge.hpp"
#include "ein/search/explore.hpp"
#include "ein/search/instantiate.hpp"

namespace ein::search {

/// How far each stage of the search goes. `limits` bounds the whole search: `time`,
/// `max_states` (explored plus converging states) and `max_depth`, the derivation steps from the
/// source (explorative plus converging; EinNet's MaxDepth counted over both stages): exploration
/// stops at min(explore_depth, max_depth), and a state explored at depth d converges for at most
/// min(converge_depth, max_depth − d) steps. With the defaults (2 + 3 ≤ 7) the stage depths bind.
/// optimize_program: `limits.time` bounds all its subprograms together.
struct options {
  int explore_depth = 2;   // explorative steps (EinNet's MaxDepth, kept small)
  int converge_depth = 3;  // converging steps after them
  int post_steps = 8;      // post-optimization steps per candidate
  bool converge = true;    // off: every explorative state is instantiated as it is, in time
  budget limits;
  /// Threads of the search: optimize's explorative stage; optimize_program's searches, each
  /// exploring on the threads the others leave (decision 0017). 0: search_threads() decides.
  /// The result does not depend on it.
  unsigned threads = 0;
  program_search program;  // optimize_program's search across subprograms (choose_subprogram_plans)
};

/// One plan the search can choose, with how it was reached.
struct candidate_plan {
  expression_plan p;
  std::string target;  // the operator it converged to, or "as written" / "explored"
  /// Rule steps from the source, then how the operator matched (converged::how), then the
  /// post-optimization steps.
  std::vector<derive::step> steps;
};

/// Counters of one search.
struct search_statistics {
  statistics explore;            // the explorative stage
  converge_statistics converge;  // all converging runs together
  std::map<std::string, std::uint64_t> per_operator;  // distinct candidates per target operator
  std::uint64_t instantiated = 0;  // distinct derived expressions instantiated
  std::uint64_t refused = 0;       // plans with a compute-bound eOperator
  std::uint64_t unmatched = 0;     // plans without a library operator at run time
  double seconds = 0;
  stop_reason reason = stop_reason::exhausted;

  std::string str() const {
    std::string r = "explore: " + std::to_string(explore.states) + " states (" +
                    std::to_string(explore.pruned) + " pruned) to depth " +
                    std::to_string(explore.depth) + "; converge: " +
                    std::to_string(converge.states) + " states, " +
                    std::to_string(converge.pruned) + " pruned, " +
                    std::to_string(converge.rejected) + " not closer, " +
                    std::to_string(converge.found) + " matched; " +
                    std::to_string(instantiated) + " instantiated, " + std::to_string(refused) +
                    " refused (compute-bound eOperator), " +
                    std::to_string(unmatched) + " without a library operator; candidates:";
    for (auto& [op, n] : per_operator) r += " " + op + "=" + std::to_string(n);
    char buf[64];
    std::snprintf(buf, sizeof buf, "; %.3f s, stop: ", seconds);
    return r + buf + name(reason);
  }
};

/// The result of a search: the chosen plan, the plan as written, every candidate.
struct optimized {
  expression_plan best;
  expression_plan baseline;
  std::vector<candidate_plan> candidates;  // baseline first, then in discovery order
  std::size_t chosen = 0;                  // index of `best` in candidates
  search_statistics stats;
  std::string model;                       // the cost model's description

  std::string report() const {
    std::string r = "cost model: " + model + "\n" + stats.str() + "\nbaseline (" +
                    baseline.shape() + "):\n" + baseline.str() + "chosen (" + best.shape() +
                    ", " + candidates[chosen].target + "):\n" + best.str();
    for (auto& s : candidates[chosen].steps) r += "  step " + derive::to_string(s) + "\n";
    return r;
  }
};

namespace detail {

// The scope a merge_traversal step inlines (its `inline` position), or nullptr.
inline ir::scope_ptr inlined_scope(const ir::scope_ptr& root, const derive::step& how) {
  auto* inlined = how.get<derive::path>("inline");
  if (!inlined) return nullptr;
  ir::scope_ptr found;
  derive::for_each_position(root, [&](const ir::scope_ptr& s, const derive::path& p) {
    if (!found && p == *inlined) found = s;
  });
  return found;
}

// True when the kernel computing `s` in `p` is a library operator.
inline bool runs_library(const expression_plan& p, const ir::scope_ptr& s, kernel_memo& memo) {
  auto& form = memo.form(s);
  for (auto& k : p.kernels)
    if (k.library() && memo.form(k.value) == form) return true;
  return false;
}

}  // namespace detail

/// Post-optimization of a plan (EinNet §6): fuses eOperators into the kernels that read them
/// (traversal merging) and shrinks scopes to where they are non-zero (boundary tightening),
/// greedily, one step at a time, keeping a step only when the plan gets strictly cheaper and
/// runs no fewer library operators. A library operator is never inlined into its reader (that
/// would undo the derivation); a tightened scope may become one (E5 → E6 of Figure 5).
/// `memo` (optional) is instantiate's, shared by the calls of one search.
inline expression_plan post_optimize(expression_plan p, const cost::model& model, int max_steps,
                          std::vector<derive::step>* steps = nullptr, kernel_memo* memo = nullptr) {
  static constexpr derive::rule fusions[] = {{"merge_traversal", &derive::merge_traversal},
                                             {"tighten_boundary", &derive::tighten_boundary}};
  kernel_memo own;
  auto& known = memo ? *memo : own;
  for (int i = 0; i < max_steps; ++i) {
    std::optional<expression_plan> best;
    derive::step how;
    for (auto& f : fusions)
      for (auto& c : derive::apply(f, p.expr)) {
        if (auto inlined = detail::inlined_scope(p.expr, c.how))
          if (detail::runs_library(p, inlined, known)) continue;
        auto q = instantiate(c.result, model, &known);
        if (q.library_kinds().size() < p.library_kinds().size()) continue;
        if (q.seconds < (best ? best->seconds : p.seconds) * (1 - 1e-9)) best = std::move(q), how = c.how;
      }
    if (!best) break;
    p = std::move(*best);
    if (steps) steps->push_back(how);
  }
  return p;
}

/// The better of two plans: cheaper, then fewer kernels at run time; ties keep `a`.
inline bool better(const expression_plan& a, const expression_plan& b) {
  if (a.seconds != b.seconds) return a.seconds < b.seconds;
  return a.run_time_kernels() < b.run_time_kernels();
}

/// Searches for the cheapest instantiation of `source` under `model` (EinNet §6.1):
///  1. explorative derivation with `rules` to `opts.explore_depth`;
///  2. from every state, converging derivation toward each compute-heavy operator
///     (compute_targets()) for at most `opts.converge_depth` steps, and at most
///     `opts.limits.max_depth` steps from the source in all;
///  3. every expression reached is instantiated and post-optimized; plans whose every run-time
///     kernel is a library operator or a memory-bound eOperator, one library operator at least,
///     are candidates;
///  4. the cheapest candidate wins (ties: fewer kernels, then discovery order). The plan of the
///     expression as written (its operator if it matches one, else one eOperator) is always the
///     first candidate, so the result is never worse than it under the model.
/// Deterministic; stops at `opts.limits` (time, states) with the best plan found so far.
inline optimized optimize(const ir::scope_ptr& source, std::span<const derive::rule> rules,
                          const cost::model& model, const options& opts = {},
                          const progress_fn& progress = {}) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  auto deadline = start + opts.limits.time;
  optimized out;
  out.model = model.describe();
  auto& st = out.stats;

  out.baseline = instantiate(source, model);
  out.candidates.push_back({out.baseline, "as written", {}});
  kernel_memo kernels;  // the plans share most of their scopes
  std::set<std::string> planned{ir::canonical_string(*source)};

  auto consider = [&](const ir::scope_ptr& e, const std::string& target, std::vector<derive::step> steps) {
    if (!planned.insert(kernels.form(e)).second) return;
    ++st.instantiated;
    auto p = post_optimize(instantiate(e, model, &kernels), model, opts.post_steps, &steps, &kernels);
    if (!p.matched_or_memory_bound()) {
      ++st.refused;
      return;
    }
    if (p.library_kinds().empty()) {  // all eOperators: the expression as written, redone
      ++st.unmatched;
      return;
    }
    ++st.per_operator[target];
    out.candidates.push_back({std::move(p), target, std::move(steps)});
  };

  budget explore_limits = opts.limits;
  explore_limits.max_depth = std::min(opts.explore_depth, opts.limits.max_depth);
  auto ex = explore(source, rules, explore_limits, true, progress, search_threads(opts.threads));
  st.explore = ex.stats;
  st.reason = ex.stats.reason == stop_reason::depth ? stop_reason::exhausted : ex.stats.reason;

  auto last_report = start;
  auto report = [&] {
    auto now = clock::now();
    if (!progress || now - last_report < std::chrono::seconds(1)) return;
    statistics s = st.explore;
    s.seconds = std::chrono::duration<double>(now - start).count();
    progress(s);
    last_report = now;
  };

  if (!opts.converge) {
    // every explorative state as it is, those kept when exploration ran out of budget included
    for (std::size_t i = 0; i < ex.states.size(); ++i) {
      if (clock::now() >= deadline) {
        st.reason = stop_reason::time;
        break;
      }
      consider(ex.states[i].expr, "explored", ex.path(i));
      report();
    }
  }
  auto targets = compute_targets();
  std::vector<std::unordered_set<std::string>> visited(targets.size());
  for (std::size_t i = 0; opts.converge && i < ex.states.size() && st.reason != stop_reason::time &&
                          st.reason != stop_reason::states;
       ++i) {
    auto path = ex.path(i);
    converge_cache shared;  // the runs toward every target from this state derive the same trees
    for (std::size_t t = 0; t < targets.size(); ++t) {
      int steps_left = std::min(opts.converge_depth, opts.limits.max_depth - ex.states[i].depth);
      converger c(*targets[t], rules, steps_left, deadline, visited[t], st.converge, &shared);
      for (auto& found : c.run(ex.states[i].expr)) {
        auto steps = path;
        steps.insert(steps.end(), found.steps.begin(), found.steps.end());
        steps.push_back(found.form.how);
        consider(found.form.expr, match::name(targets[t]->kind), std::move(steps));
      }
      if (c.timed_out() || clock::now() >= deadline) {
        st.reason = stop_reason::time;
        break;
      }
      if (st.explore.states + st.converge.states >= opts.limits.max_states) {
        st.reason = stop_reason::states;
        break;
      }
    }
    report();
  }

  for (std::size_t i = 1; i < out.candidates.size(); ++i)
    if (better(out.candidates[i].p, out.candidates[out.chosen].p)) out.chosen = i;
  out.best = out.candidates[out.chosen].p;
  st.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return out;
}

}  // namespace ein::search
