// The result of the program-level optimizer: the optimized program, its subprograms' searches,
// the program-level steps, and their report.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ein/derive/rule.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/budget.hpp"
#include "ein/search/program/subprograms.hpp"

namespace ein::search {

/// The optimized program and how it was found.
struct optimized_program {
  ir::program source;  // the program searched
  /// The same inputs, weights and outputs; subprogram `d` becomes definitions `d_k1`, `d_k2`, ...
  /// for its kernels, the last one keeping the name `d`.
  ir::program program;
  std::vector<subprogram> subprograms;  // in program order
  std::vector<derive::step> join_steps;  // definitions joined across linear operations, in order
  std::vector<derive::step> post_steps;  // program-level post-optimization, in order
  std::vector<std::string> weight_transforms;  // definitions that read weights only
  /// Per definition of `program` that a subprogram's chosen plan wrote (or a part of): the
  /// index of that subprogram. Definitions post-optimization made (a merged contraction) have
  /// none.
  std::map<std::string, std::size_t> origin;
  /// Per definition of `program`: the library instance the search priced it as for the build
  /// `priced_for` (its kernel's in the chosen plan, carried through post-optimization and
  /// merging: written_instance), or nothing for an eOperator; the plan binds these.
  std::map<std::string, std::optional<match::instance>> priced;
  ein::plan::capabilities priced_for;
  program_search relax;                 // the search across subprograms (choose_subprogram_plans)
  program_statistics relax_stats;       // and how it went, for the last build chosen for
  std::string model;                    // the cost model's description
  unsigned threads = 1;                 // searches run at once
  double seconds = 0;                   // wall clock

  /// States and pruned candidates of the searches that ran (a subprogram that shares another's
  /// search counts nothing).
  std::uint64_t states() const { return sum([](const search_statistics& s) { return s.explore.states + s.converge.states; }); }
  std::uint64_t pruned() const { return sum([](const search_statistics& s) { return s.explore.pruned + s.converge.pruned; }); }
  int depth() const {
    int d = 0;
    for (auto& s : subprograms) d = std::max(d, s.result.stats.explore.depth);
    return d;
  }
  std::size_t searched() const {
    return static_cast<std::size_t>(std::count_if(subprograms.begin(), subprograms.end(),
                                                  [](const subprogram& s) { return s.searched; }));
  }
  /// The searches that ran: searched subprograms less those that share another's search.
  std::size_t distinct() const {
    return static_cast<std::size_t>(std::count_if(subprograms.begin(), subprograms.end(),
                                                  [](const subprogram& s) { return s.searched && !s.shares; }));
  }
  /// `time` or `states` where some search ran out of budget, else `exhausted`.
  stop_reason reason() const {
    stop_reason r = stop_reason::exhausted;
    for (auto& s : subprograms)
      if (s.result.stats.reason == stop_reason::time || (s.result.stats.reason == stop_reason::states && r != stop_reason::time))
        r = s.result.stats.reason;
    return r;
  }
  /// True when a search ran out of budget (reason() is not `exhausted`): the plan is the best
  /// found within it.
  bool cut() const { return reason() != stop_reason::exhausted; }
  /// One line without timings (the same program gives the same line), e.g.
  /// `2 of 3 subprograms searched, 2 distinct: 405 states, 941 pruned, depth 2, stop: exhausted`.
  std::string summary() const {
    return std::to_string(searched()) + " of " + std::to_string(subprograms.size()) +
           " subprograms searched, " + std::to_string(distinct()) + " distinct: " +
           std::to_string(states()) + " states, " +
           std::to_string(pruned()) + " pruned, depth " + std::to_string(depth()) +
           ", stop: " + name(reason());
  }
  /// Each subprogram's statistics and chosen plan, the joins and post-optimization steps, the
  /// definitions.
  std::string report() const {
    char head[96];
    std::snprintf(head, sizeof head, " (%.3f s on %u threads)\n", seconds, threads);
    std::string r = "cost model: " + model + "\n" + summary() + head + program_search_line();
    for (auto& s : subprograms) {
      r += "subprogram " + s.name + (s.name == s.definition ? "" : " (of " + s.definition + ")") + ": ";
      if (s.shares) r += "as " + subprograms[*s.shares].name + " (same search, other tensors); ";
      if (s.searched)
        r += s.result.stats.str() + "\n  chosen " + s.result.best.shape() + " (" +
             s.result.candidates[s.result.chosen].target + "), " + expression_plan::ms_text(s.seconds_as_run) +
             " ms as the backend runs it; baseline " + s.result.baseline.shape() + " " +
             expression_plan::ms_text(s.baseline_as_run) + " ms\n";
      else
        r += "as written (no summation)\n";
      if (s.checked)
        r += "  measured on this machine: chosen " + expression_plan::ms_text(s.checked->chosen) + " ms, as written " +
             expression_plan::ms_text(s.checked->written) + " ms: " +
             (s.checked->replaced ? "replaced by the plan as written, not faster\n" : "kept\n");
      for (auto& line : split_lines(s.result.best.str(s.kernel_seconds_as_run))) r += "  " + line + "\n";
    }
    for (auto& p : join_steps) r += "joined: " + derive::to_string(p) + "\n";
    for (auto& p : post_steps) r += "post-optimization: " + derive::to_string(p) + "\n";
    for (auto& d : program.definitions)
      r += "  " + d.name + " = " + ir::to_string(*d.value) +
           (std::count(weight_transforms.begin(), weight_transforms.end(), d.name) ? "  [weight transform]" : "") + "\n";
    return r;
  }

  /// The program-level search's counters and the program's predicted time as the build runs it,
  /// e.g. `program search (alpha 1.05): 0.0620 ms, 0.0714 ms with plans chosen alone; 3 expanded,
  /// 5 kept, 2 pruned, stop: exhausted (0.001 s)`.
  std::string program_search_line() const {
    char line[224];
    auto& p = relax_stats;
    std::snprintf(line, sizeof line,
                  "program search (alpha %g): %s ms, %s ms with plans chosen alone; %llu expanded, %llu kept, %llu "
                  "pruned, stop: %s (%.3f s)\n",
                  p.alpha, expression_plan::ms_text(p.best_seconds).c_str(), expression_plan::ms_text(p.start_seconds).c_str(),
                  static_cast<unsigned long long>(p.expanded), static_cast<unsigned long long>(p.kept),
                  static_cast<unsigned long long>(p.pruned), name(p.reason), p.seconds);
    return line;
  }

 private:
  template <class F>
  std::uint64_t sum(F f) const {
    std::uint64_t n = 0;
    for (auto& s : subprograms)
      if (!s.shares) n += f(s.result.stats);
    return n;
  }
  static std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> r;
    std::size_t at = 0;
    for (auto nl = text.find('\n'); nl != std::string::npos; at = nl + 1, nl = text.find('\n', at))
      r.push_back(text.substr(at, nl - at));
    if (at < text.size()) r.push_back(text.substr(at));
    return r;
  }
};

}  // namespace ein::search
