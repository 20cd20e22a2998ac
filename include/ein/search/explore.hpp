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
#include "ein/search/parallel.hpp"

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

/// States of a level expanded at once on more than one thread (per thread): enough to keep the
/// threads busy between admissions, few enough to bound the candidates held in memory.
inline constexpr std::size_t explore_block_per_thread = 128;

/// Applies every rule to every state, level by level, up to `limits.max_depth`.
///
/// Pruning loses nothing: levels are expanded in order, so a state is first met at its
/// shallowest depth, and a state met again (same fingerprint *and* same canonical form) is
/// dropped only because it already is, or will be, expanded from at least as shallow a depth.
/// (The published implementation prunes depth-first against a depth-less visited set and so
/// drops states whose second sighting was shallower.) With `prune = false` every candidate is
/// kept, which the tests use to show pruning changes the cost, not the results.
/// Deterministic: the same source, rules and limits give the same states in the same order.
/// `threads` apply the rules to a level's states and canonicalize the candidates, a block of
/// states at a time; the candidates are admitted on the calling thread in the order one thread
/// meets them, so the states, their order and the statistics (seconds apart) do not depend on
/// `threads`, nor does any stop but the time limit.
inline explored explore(const ir::scope_ptr& source, std::span<const derive::rule> rules,
                        const budget& limits, bool prune = true, const progress_fn& progress = {},
                        unsigned threads = 1) {
  using clock = std::chrono::steady_clock;
  auto start = clock::now(), last_report = start;
  explored out;
  auto& st = out.stats;
  // fingerprint → indices of kept states with that fingerprint (confirmed by canonical text)
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> seen;

  auto admit = [&](state s, std::uint64_t hash) {
    auto depth = static_cast<std::size_t>(s.depth);
    if (prune) {
      auto& bucket = seen[hash];
      for (auto i : bucket)
        if (out.states[i].form == s.form) {
          ++st.pruned;
          if (st.pruned_per_depth.size() <= depth) st.pruned_per_depth.resize(depth + 1);
          ++st.pruned_per_depth[depth];
          return;
        }
      bucket.push_back(out.states.size());
    }
    if (st.states_per_depth.size() <= depth) st.states_per_depth.resize(depth + 1);
    ++st.states_per_depth[depth];
    ++st.states;
    out.states.push_back(std::move(s));
  };
  auto finish = [&](stop_reason r) {
    st.reason = r;
    st.seconds = std::chrono::duration<double>(clock::now() - start).count();
    return out;
  };

  // A candidate with its canonical form and the form's hash, the costly part of admitting it.
  struct formed {
    derive::candidate c;
    std::string form;
    std::uint64_t hash;
  };
  auto expand = [&](std::size_t i) {
    std::vector<formed> r;
    for (auto& rule : rules)
      for (auto& c : derive::apply(rule, out.states[i].expr)) {
        auto form = ir::canonical_string(*c.result);
        auto hash = ir::stable_hash(form);
        r.push_back({std::move(c), std::move(form), hash});
      }
    return r;
  };

  auto source_form = ir::canonical_string(*source);
  auto source_hash = ir::stable_hash(source_form);
  admit({source, 0, -1, {}, std::move(source_form)}, source_hash);
  std::size_t level_begin = 0;
  for (int depth = 0;; ++depth) {
    st.seconds_to_depth.push_back(std::chrono::duration<double>(clock::now() - start).count());
    std::size_t level_end = out.states.size();
    if (level_begin == level_end) return finish(stop_reason::exhausted);
    if (depth >= limits.max_depth) return finish(stop_reason::depth);
    st.depth = depth + 1;
    stop_reason stop{};
    auto consume = [&](std::size_t k, std::vector<formed> candidates) {
      auto i = level_begin + k;
      for (auto& f : candidates) {
        ++st.candidates;
        admit({std::move(f.c.result), depth + 1, static_cast<std::int64_t>(i), std::move(f.c.how), std::move(f.form)},
              f.hash);
        if (st.states >= limits.max_states) {
          stop = stop_reason::states;
          return false;
        }
      }
      auto now = clock::now();
      if (now - start >= limits.time) {
        stop = stop_reason::time;
        return false;
      }
      if (progress && now - last_report >= std::chrono::seconds(1)) {
        st.seconds = std::chrono::duration<double>(now - start).count();
        progress(st);
        last_report = now;
      }
      return true;
    };
    if (!map_in_order(level_end - level_begin, threads, explore_block_per_thread * threads,
                      [&](std::size_t k) { return expand(level_begin + k); }, consume))
      return finish(stop);
    level_begin = level_end;
  }
}

}  // namespace ein::search
