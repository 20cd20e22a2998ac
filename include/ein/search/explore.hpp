// Explorative derivation (EinNet §6.1): breadth-first application of the rules, pruned by fingerprint.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ein/derive/rule.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/search/budget.hpp"

namespace ein::search {

/// One distinct expression reached by the search, with how it was reached.
struct state {
  ir::scope_ptr expr;
  int depth = 0;
  std::int64_t parent = -1;  // index in explored::states; -1 for the source
  derive::step how;          // the step from the parent
  std::string form;          // ir::canonical_string(*expr), so that callers need not redo it
};

struct explored {
  std::vector<state> states;  // in discovery order: by depth, then rule order
  statistics stats;

  /// The rule steps from the source to states[i].
  std::vector<derive::step> path(std::size_t i) const {
    std::vector<derive::step> steps;
    for (auto j = static_cast<std::int64_t>(i); states[j].parent >= 0; j = states[j].parent)
      steps.insert(steps.begin(), states[j].how);
    return steps;
  }
};

/// Called about once a second on long searches.
using progress_fn = std::function<void(const statistics&)>;

/// Applies every rule to every state, level by level, up to `limits.max_depth`.
///
/// Pruning loses nothing: levels are expanded in order, so a state is first met at its
/// shallowest depth, and a state met again (same fingerprint *and* same canonical form) is
/// dropped only because it already is, or will be, expanded from at least as shallow a depth.
/// (The published implementation prunes depth-first against a depth-less visited set and so
/// drops states whose second sighting was shallower.) With `prune = false` every candidate is
/// kept, which the tests use to show pruning changes the cost, not the results.
/// Deterministic: the same source, rules and limits give the same states in the same order.
inline explored explore(const ir::scope_ptr& source, std::span<const derive::rule> rules,
                        const budget& limits, bool prune = true, const progress_fn& progress = {}) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now(), last_report = start;
  explored out;
  auto& st = out.stats;
  // fingerprint → indices of kept states with that fingerprint (confirmed by canonical text)
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> seen;

  auto admit = [&](state s) {
    s.form = ir::canonical_string(*s.expr);
    if (prune) {
      auto& bucket = seen[ir::stable_hash(s.form)];
      for (auto i : bucket)
        if (out.states[i].form == s.form) {
          ++st.pruned;
          return;
        }
      bucket.push_back(out.states.size());
    }
    if (st.states_per_depth.size() <= static_cast<std::size_t>(s.depth))
      st.states_per_depth.resize(s.depth + 1);
    ++st.states_per_depth[s.depth];
    ++st.states;
    out.states.push_back(std::move(s));
  };
  auto finish = [&](stop_reason r) {
    st.reason = r;
    st.seconds = std::chrono::duration<double>(clock::now() - start).count();
    return out;
  };

  admit({source, 0, -1, {}, ""});
  std::size_t level_begin = 0;
  for (int depth = 0;; ++depth) {
    st.seconds_to_depth.push_back(std::chrono::duration<double>(clock::now() - start).count());
    std::size_t level_end = out.states.size();
    if (level_begin == level_end) return finish(stop_reason::exhausted);
    if (depth >= limits.max_depth) return finish(stop_reason::depth);
    st.depth = depth + 1;
    for (std::size_t i = level_begin; i < level_end; ++i) {
      for (auto& r : rules) {
        for (auto& c : derive::apply(r, out.states[i].expr)) {
          ++st.candidates;
          admit({std::move(c.result), depth + 1, static_cast<std::int64_t>(i), std::move(c.how), ""});
          if (st.states >= limits.max_states) return finish(stop_reason::states);
        }
      }
      auto now = clock::now();
      if (now - start >= limits.time) return finish(stop_reason::time);
      if (progress && now - last_report >= std::chrono::seconds(1)) {
        st.seconds = std::chrono::duration<double>(now - start).count();
        progress(st);
        last_report = now;
      }
    }
    level_begin = level_end;
  }
}

}  // namespace ein::search
