// The tuning of a host plan's eOperators (ein_generate TUNE ON): each one's schedule read from the
// tuning database, or measured on this machine from scratch or from a similar kernel's schedule,
// within a budget in seconds.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/emission.hpp"
#include "ein/codegen/header.hpp"
#include "ein/cost/cache.hpp"
#include "ein/measure/host_tuner.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/host_reuse.hpp"
#include "ein/tune/recorded_sources.hpp"
#include "ein/tune/reuse_plan.hpp"

namespace ein::generator::detail {

// What `--tune on` asks for: the database file, the toolchain file that compiles eOperators, the
// seconds tuning may take in all, and whether a kernel may start from a similar kernel's schedule
// (false: each from scratch, the baseline ETO's reuse is measured against).
struct tuning_request {
  std::string database_path, toolchain_path;
  double budget_seconds = 600;
  bool reuse = true;
};

// How an eOperator step came by its schedule (codegen::step_tuning): `record` its kernel's record of this
// machine that is a point of the kernel's space (null: none), `fits` whether it is a point of the
// step's own space too, `tuned_now` whether its kernel was measured by this generation.
inline codegen::step_tuning tuning_of(const tune::tuning_record* record, bool fits, bool tuned_now) {
  codegen::step_tuning t;
  const auto* h = record ? std::get_if<tune::host_schedule>(&record->best) : nullptr;
  if (!h || !fits) {
    t.unfit = h != nullptr;
    return t;
  }
  t.schedule = *h;
  t.seconds = record->seconds;
  t.default_seconds = record->default_seconds;
  if (!tuned_now)
    t.how = codegen::step_tuning::source::database;
  else if (record->reused_from.empty())
    t.how = codegen::step_tuning::source::scratch;
  else {
    t.how = codegen::step_tuning::source::reuse;
    t.reused_from = record->reused_from;
  }
  return t;
}

// `tuning: 2 eOperators tuned from scratch, 1 by reuse, 0 from the tuning database, 1 at the
// default schedule`: the eOperator steps of `steps` (none: a library call) by how each found its
// schedule, each counted once.
inline std::string tuning_counts(const std::vector<std::optional<codegen::step_tuning>>& steps) {
  std::size_t n[4] = {};
  for (auto& t : steps)
    if (t) ++n[static_cast<int>(t->how)];
  using source = codegen::step_tuning::source;
  return "tuning: " + std::to_string(n[int(source::scratch)]) + " eOperators tuned from scratch, " +
         std::to_string(n[int(source::reuse)]) + " by reuse, " + std::to_string(n[int(source::database)]) +
         " from the tuning database, " + std::to_string(n[int(source::none)]) + " at the default schedule";
}

// `tuning: y (step 0) from the database, {"block_columns": 32, ...}, 12.1 us against 20.3 us at the
// default`, `tuning: z (step 1) by reuse of y, ...`, or `tuning: y (step 0) default (why)`; `source`
// names the kernel reused (a definition of the plan where one has its key, else the key).
inline std::string tuning_line(const std::string& definition, std::size_t step, const codegen::step_tuning& t,
                               const std::string& source = {}) {
  std::string r = "tuning: " + definition + " (step " + std::to_string(step) + ") " + name(t.how);
  if (t.how == codegen::step_tuning::source::reuse) r += " of " + (source.empty() ? t.reused_from : source);
  if (!t.schedule)
    return r + (t.unfit ? " (its record is no point of the step's own space)" : " (not tuned within the budget)");
  char times[120];
  std::snprintf(times, sizeof times, ", %.3g us against %.3g us at the default", t.seconds * 1e6, t.default_seconds * 1e6);
  return r + ", " + tune::schedule_json(*t.schedule).dump() + times;
}

// The tuning of the eOperator steps of `e`'s plan (by step of its layout; none: a library call),
// computing as the plan's codegen::accumulation asks: each step's record in the database where it
// holds one of this machine; the kernels without one tuned (measure::host_tuner) while the budget
// lasts in the order of their reuse plan (tune::plan_host_reuse, decision 0029): a root from
// scratch, each other kernel from its source's record, a source being a kernel of this plan or
// one the database holds a record of (every one from scratch without `r.reuse`); else the default. The weight
// transforms that prepare() runs once keep the default and are not counted: tuning them would
// spend the budget on work a prepared plan never repeats. A schedule that is no point of the
// step's own space (the tuned kernel stands alone, its reads starting at 0) stays the default. Holds the database's file
// lock throughout, saves the database when a tuning added to it, and prints what it did: the
// counts (tuning_counts) and the kernels measured (steps of one kernel share its tuning), then a
// line a step (tuning_line).
inline std::vector<std::optional<codegen::step_tuning>> tune_host_plan(const codegen::emission& e, const tuning_request& r) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const codegen::named_plan& l = e.steps;
  const auto calls = codegen::emitted_calls(l, codegen::backend::host);
  const auto& once = e.prep.in_prepare;
  // generators running in parallel tune one at a time (their timings would disturb each other)
  // and each reads the records the one before saved
  cost::detail::file_lock one_at_a_time(r.database_path);
  tune::tuning_database db(r.database_path);
  measure::host_tuning_options o;
  o.accumulate = e.plan.accumulate;
  o.progress = "ein_generate: tuning";
  o.batch.work_directory = std::filesystem::path(r.database_path).parent_path().string();
  if (o.batch.work_directory.empty()) o.batch.work_directory = ".";
  const auto toolchain = measure::read_host_toolchain(r.toolchain_path);
  const measure::host_tuner reader(toolchain, o);
  db.expect(reader.device());

  // the eOperator steps' kernels, and the first step of each kernel the database has no record of
  std::vector<std::size_t> eoperators, untuned;
  std::vector<std::string> keys(l.steps.size());
  std::vector<tune::kernel_shape> shapes;
  std::map<std::string, std::size_t> untuned_kernel;  // key → index into untuned
  for (std::size_t k = 0; k < l.steps.size(); ++k) {
    const auto& s = *l.steps[k].value;
    if (calls[k] || once[k] || codegen::empty_box(s.traversal)) continue;
    eoperators.push_back(k);
    auto [key, shape] = measure::host_tuner::identify(s);
    keys[k] = key;
    if (untuned_kernel.count(key) || reader.recorded(s, db)) continue;
    untuned_kernel[key] = untuned.size();
    untuned.push_back(k);
    shapes.push_back(std::move(shape));
  }
  // with reuse, the kernels an earlier build tuned may be sources too; a search from scratch
  // costs its trials, a reuse the default and the neighbourhood of where the source's best maps
  const auto recorded = !r.reuse ? std::vector<tune::recorded_kernel>{} : tune::reuse_sources(
      db.records(reader.device()), shapes, [](const tune::kernel_shape& k, const tune::schedule& best) {
        const auto* h = std::get_if<tune::host_schedule>(&best);
        return h && tune::host_valid(k, *h);
      });
  const auto reuse = tune::plan_host_reuse(shapes, o.trials, recorded);
  std::vector<bool> tuned(untuned.size());  // per untuned kernel: whether it was measured now
  std::size_t from_scratch = 0, by_reuse = 0;  // kernels measured, not steps
  for (std::size_t i : reuse.order()) {
    o.budget_seconds = r.budget_seconds - elapsed();
    if (i >= untuned.size() || o.budget_seconds <= 0) continue;
    measure::host_tuner tuner(toolchain, o);
    const auto& s = *l.steps[untuned[i]].value;
    const std::size_t source = r.reuse ? reuse.source[i] : tune::reuse_plan::scratch;
    const auto t = source == tune::reuse_plan::scratch ? tuner.tune(s, &db)
                   : source < untuned.size()
                       ? tuner.tune_from(s, *l.steps[untuned[source]].value, db)
                       : tuner.tune_from(s, recorded[source - untuned.size()].key, recorded[source - untuned.size()].shape, db);
    tuned[i] = true;
    if (t.measured) ++(t.record.reused_from.empty() ? from_scratch : by_reuse);
  }

  std::vector<std::optional<codegen::step_tuning>> steps(l.steps.size());
  for (std::size_t k : eoperators) {
    const auto found = reader.recorded(*l.steps[k].value, db);
    const auto* h = found ? std::get_if<tune::host_schedule>(&found->best) : nullptr;
    const auto u = untuned_kernel.find(keys[k]);
    steps[k] = tuning_of(found ? &*found : nullptr, h && tune::host_valid(codegen::shape_of(l.steps[k], l), *h),
                         u != untuned_kernel.end() && tuned[u->second]);
  }
  if (std::find(tuned.begin(), tuned.end(), true) != tuned.end()) db.save();
  std::printf("%s, in %.1f s (%zu kernels measured: %zu from scratch, %zu by reuse)\n", tuning_counts(steps).c_str(),
              elapsed(), from_scratch + by_reuse, from_scratch, by_reuse);
  std::map<std::string, std::string> definition;  // kernel key → the first step's definition
  for (std::size_t k : eoperators) definition.try_emplace(keys[k], l.buffers[l.steps[k].target].name);
  for (std::size_t k : eoperators) {
    const auto source = definition.find(steps[k]->reused_from);
    std::printf("%s\n", tuning_line(l.buffers[l.steps[k].target].name, k, *steps[k],
                                     source == definition.end() ? std::string() : source->second)
                             .c_str());
  }
  return steps;
}

// The schedules the steps of `tuning` run under, by step (none: the default).
inline std::vector<std::optional<tune::host_schedule>> schedules_of(const std::vector<std::optional<codegen::step_tuning>>& tuning) {
  std::vector<std::optional<tune::host_schedule>> r;
  for (auto& t : tuning) r.push_back(t ? t->schedule : std::nullopt);
  return r;
}

}  // namespace ein::generator::detail
