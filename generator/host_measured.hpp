// The search of a host plan under the measured model (ein_generate COST auto or measured, PLAN_FOR
// host): the roofline of this machine's profile explores, the kernels of each subprogram's
// finalists are timed here and decide, and a choice that does not run faster than the program as
// written gives way to it (docs/decisions/0025).
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/codegen/header.hpp"
#include "ein/cost/measured.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/all.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/measure/host_timer.hpp"
#include "ein/search/program/finalists.hpp"
#include "ein/search/program/never_worse.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace ein::generator::detail {

/// How a measured host search spends its time: the candidates each subprogram keeps to measure,
/// the rounds of pricing and timing, the wall clock timing may take (compilation included), and
/// the slowest kernel it times, as the roofline prices it (cost::measured::time_at_most).
struct host_measuring {
  std::size_t finalists = 6;
  int rounds = 4;
  double budget_seconds = 600;
  double max_kernel_seconds = 1;  // kernels the roofline prices above it are not timed
};

/// What a measured host search measured: kernels timed (library calls and eOperators), those
/// whose every run another process disturbed, eOperators left priced by the roofline (no time or
/// rounds left), and subprograms checked.
struct host_measured_statistics {
  std::size_t library_timed = 0, eoperators_timed = 0, disturbed = 0, left = 0, refused = 0, checked = 0,
              replaced = 0;
  int rounds = 0;
  double seconds = 0;

  /// `timed 35 library calls and 120 eOperators in 2 rounds (41.2 s), 0 eOperators left to the
  /// roofline (0 too large to run); 3 subprograms run against the program as written, 1 replaced
  /// by it`, and where some were, `; 4 kernels timed only while other processes held the cores`.
  std::string str() const {
    char text[480];
    std::snprintf(text, sizeof text,
                  "timed %zu library calls and %zu eOperators in %d rounds (%.1f s), %zu eOperators left to the "
                  "roofline (%zu too large to run); %zu subprograms run against the program as written, %zu "
                  "replaced by it%s",
                  library_timed, eoperators_timed, rounds, seconds, left + refused, refused, checked, replaced,
                  disturbed ? ("; " + std::to_string(disturbed) + " kernels timed only while other processes held "
                               "the cores").c_str()
                            : "");
    return text;
  }
};

/// The cache key of a plan of a whole program for a build with capabilities `caps`: `plan <caps>
/// <ir::canonical_string of the program>`.
inline std::string plan_key(const ir::program& p, const ein::plan::capabilities& caps) {
  return "plan " + caps.str() + " " + ir::canonical_string(p);
}

/// A plan to time and the key its time is kept under in the measurement cache.
struct keyed_plan {
  std::string key;
  ein::plan::program_plan plan;
};

/// Times pairs of plans here, each pair's two run prepared in turns (measure::time_in_turns with
/// `turns`) after all are compiled together by `toolchain`; times are kept in `cache` under
/// `device`, where a pair already timed is found again, so that a rebuild decides as the build
/// before it did. Returns each pair's (first, second) seconds.
inline std::vector<std::pair<double, double>> time_plan_pairs(std::vector<std::pair<keyed_plan, keyed_plan>> pairs,
                                                              const measure::host_toolchain& toolchain,
                                                              codegen::accumulation accumulate, cost::measurement_cache& cache,
                                                              const std::string& device,
                                                              const measure::timing_options& turns) {
  std::vector<std::pair<double, double>> times(pairs.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    auto a = cache.find(device, pairs[i].first.key), b = cache.find(device, pairs[i].second.key);
    if (a && b)
      times[i] = {a->seconds, b->seconds};
    else
      todo.push_back(i);
  }
  if (todo.empty()) return times;
  std::vector<codegen::timing_case> cases;
  for (auto i : todo) {
    cases.push_back({"ein_first_" + std::to_string(i), pairs[i].first.plan});
    cases.push_back({"ein_second_" + std::to_string(i), pairs[i].second.plan});
  }
  measure::host_batch batch(std::move(cases), toolchain, accumulate);
  cost::detail::file_lock across_processes(cache.path());  // one timing at a time on this machine
  for (std::size_t n = 0; n < todo.size(); ++n) {
    auto a = batch.prepare(2 * n), b = batch.prepare(2 * n + 1);
    auto t = measure::time_in_turns({[&] { a->run(); }, [&] { b->run(); }}, turns);
    auto& [first, second] = pairs[todo[n]];
    cache.store(device, first.key, {t[0].seconds, t[0].runs});
    cache.store(device, second.key, {t[1].seconds, t[1].runs});
    times[todo[n]] = {t[0].seconds, t[1].seconds};
  }
  return times;
}

/// The plan of program `p` for a build with capabilities `caps`, bound to the instances `model`
/// prices (search::priced_instances: the program as written, each definition matched once here),
/// as search::make_plan binds a searched program's (whose instances the search carried).
inline ein::plan::program_plan priced_plan(const ir::program& p, const cost::model& model,
                                           const ein::plan::capabilities& caps) {
  ein::plan::provenance how;
  how.priced = search::priced_instances(p, model, caps);
  how.priced_for = caps;
  return ein::plan::make_plan(p, caps, std::move(how));
}

/// Times pairs of subprogram programs (chosen, as written) here (time_plan_pairs), each bound to
/// the instances `model` prices (priced_plan) and kept under its plan_key.
inline search::pair_timer host_pair_timer(const measure::host_toolchain& toolchain, const cost::model& model,
                                          const ein::plan::capabilities& caps, codegen::accumulation accumulate,
                                          cost::measurement_cache& cache, const std::string& device) {
  return [&toolchain, &model, caps, accumulate, &cache, device](
             const std::vector<std::pair<ir::program, ir::program>>& pairs) {
    std::vector<std::pair<keyed_plan, keyed_plan>> plans;
    for (auto& [chosen, written] : pairs)
      plans.push_back({{plan_key(chosen, caps), priced_plan(chosen, model, caps)},
                       {plan_key(written, caps), priced_plan(written, model, caps)}});
    measure::timing_options turns;
    turns.slow_runs = turns.runs = 11;  // a verdict needs rounds, even for slow plans
    turns.very_slow_seconds = 5;
    return time_plan_pairs(std::move(plans), toolchain, accumulate, cache, device, turns);
  };
}

/// The whole searched plan against the whole plan as written, measured here: what the
/// subprograms' checks cannot see — rewrites across definitions (merges, post-optimization) and
/// where a bias or an activation lands (in a library call's epilogue or an eOperator).
struct whole_plan_check {
  double searched = 0, written = 0;  // seconds, the fastest of the runs in turns
  bool written_kept = false;         // the searched plan was not faster
  std::string str() const {
    char text[200];
    std::snprintf(text, sizeof text, "whole plan measured: searched %.4g ms, as written %.4g ms: %s", searched * 1e3,
                  written * 1e3, written_kept ? "the plan as written is kept" : "the searched plan is kept");
    return text;
  }
};

/// Runs the plan of `searched` (for `caps`, search::make_plan) against the plan of `written`, the
/// program as written, that SEARCH OFF writes (plan::make_plan), here (time_plan_pairs: a few
/// rounds for plans that take seconds; cache keys `whole searched <plan_key>` and `whole written
/// <plan_key>`), unless the two plans run the same steps; nothing then.
inline std::optional<whole_plan_check> check_whole_plan(const search::optimized_program& searched,
                                                        const ir::program& written,
                                                        const ein::plan::capabilities& caps,
                                                        const measure::host_toolchain& toolchain,
                                                        codegen::accumulation accumulate, cost::measurement_cache& cache,
                                                        const std::string& device) {
  auto searched_plan = search::make_plan(searched, caps);
  auto written_plan = ein::plan::make_plan(written, caps);
  if (codegen::describe(searched_plan, {}) == codegen::describe(written_plan, {})) return std::nullopt;  // host steps, as listed
  measure::timing_options turns;
  turns.runs = 11;
  turns.slow_seconds = 0.5;
  turns.slow_runs = 5;
  turns.very_slow_seconds = 20;
  auto [a, b] = time_plan_pairs({{{"whole searched " + plan_key(searched.program, caps), std::move(searched_plan)},
                                  {"whole written " + plan_key(written, caps), std::move(written_plan)}}},
                                toolchain, accumulate, cache, device, turns)
                    .at(0);
  return whole_plan_check{a, b, !(a < b)};
}

/// What a measured host search measures with: the roofline that explores (this machine's
/// profile's), the cache the times go to, the timer, the toolchain that compiles plans to run
/// against each other (none: no such check), how much to measure, how eOperators compute, and
/// the name progress on stderr opens with.
struct host_measurement {
  const cost::roofline& explore;
  cost::measurement_cache& cache;
  measure::host_timer& timer;
  const std::optional<measure::host_toolchain>& toolchain;
  host_measuring how;
  codegen::accumulation accumulate = codegen::accumulation::element;
  std::string progress_name;
};

/// What a measured host search leaves: the measured model of its last round (its prices chose
/// the plan) and what was measured.
struct host_measured_model {
  std::unique_ptr<cost::measured> model;
  host_measured_statistics stats;
  std::optional<whole_plan_check> whole;  // where the searched plan's steps are not SEARCH OFF's
};

/// Searches `p` for a host build with capabilities `caps`: optimize_program under `m.explore`;
/// then each searched subprogram keeps `m.how.finalists` candidates (search::keep_finalists),
/// whose kernels `m.timer` times (library calls at once, eOperators compiled in batches between
/// rounds of pricing, their times kept in `m.cache`) until a round prices everything by
/// measurement, the budget is spent or `m.how.rounds` have run; the choice is made under that
/// measured model (search::for_backend), and each chosen plan that is not the program as written
/// runs against it here (search::keep_never_worse, where a toolchain can compile them), and so
/// does the whole plan (check_whole_plan: `out.whole`).
inline search::optimized_program search_host_measured(const ir::program& p, const ein::plan::capabilities& caps,
                                                      const search::options& opts, const search::progress_fn& progress,
                                                      const host_measurement& m, host_measured_model& out) {
  auto r = search::optimize_program(p, derive::intra_rules(), m.explore, opts, progress, caps);
  search::keep_finalists(r, m.explore, caps, m.how.finalists);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto& stats = out.stats;
  search::optimized_program chosen;
  for (stats.rounds = 1;; ++stats.rounds) {
    out.model = std::make_unique<cost::measured>(m.cache, &m.timer, m.explore);
    out.model->time_at_most(m.how.max_kernel_seconds);
    auto priced = r;
    search::reprice(priced, *out.model);
    chosen = search::for_backend(std::move(priced), *out.model, caps);
    stats.library_timed += out.model->counts().timed;
    if (m.timer.waiting() == 0 || stats.rounds == m.how.rounds || elapsed() >= m.how.budget_seconds) {
      stats.left = m.timer.drop_waiting();  // priced by the roofline
      break;
    }
    auto batch = m.timer.time_eoperators(m.cache, m.how.budget_seconds - elapsed(), m.progress_name.c_str());
    stats.eoperators_timed += batch.timed;
    stats.refused += batch.refused;
    m.cache.save();
  }
  stats.seconds = elapsed();
  stats.disturbed = m.timer.disturbed();
  if (stats.disturbed)
    std::fprintf(stderr,
                 "%s: warning: kernels timed only while other processes held this machine's cores: %zu; their "
                 "times are too high, and the plan may be slower than one searched on a quiet machine: the cost "
                 "cache keeps them flagged, and the next generation times them again (build again with fewer "
                 "parallel jobs; docs/cost.md)\n",
                 m.progress_name.c_str(), stats.disturbed);
  if (m.toolchain) {
    search::keep_never_worse(chosen, *out.model, caps,
                             host_pair_timer(*m.toolchain, *out.model, caps, m.accumulate, m.cache, m.timer.device()));
    for (auto& s : chosen.subprograms)
      if (s.checked && !s.shares) ++stats.checked, stats.replaced += s.checked->replaced;
    out.whole = check_whole_plan(chosen, p, caps, *m.toolchain, m.accumulate, m.cache, m.timer.device());
  }
  return chosen;
}

}  // namespace ein::generator::detail
