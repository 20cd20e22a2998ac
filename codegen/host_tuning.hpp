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

#include "ein/codegen/header.hpp"
#include "ein/cost/cache.hpp"
#include "ein/measure/host_tuner.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/host_reuse.hpp"
#include "ein/tune/reuse_plan.hpp"

namespace ein::codegen::detail {

// What `--tune on` asks for: the database file, the toolchain file that compiles eOperators, the
// seconds tuning may take in all, and whether a kernel may start from a similar kernel's schedule
// (false: each from scratch, the baseline ETO's reuse is measured against).
struct tuning_request {
  std::string database_path, toolchain_path;
  double budget_seconds = 600;
  bool reuse = true;
};

// The schedules of `plan`'s eOperator steps (by step of make_layout; none: the default), computing
// as `accumulate` asks: each step's record in the database where it holds one of this machine;
// the kernels without one tuned (measure::host_tuner) while the budget lasts in the order of
// their reuse plan (tune::plan_reuse, decision 0029): a root from scratch, each other kernel from
// its source's record (every one from scratch without `r.reuse`); else the default. The weight
// transforms that prepare() runs once keep the default and are not counted: tuning them would
// spend the budget on work a prepared plan never repeats. A schedule that is no point of the step's own space (the
// tuned kernel stands alone, its reads starting at 0) stays the default. Holds the database's file
// lock throughout, saves the database when a tuning added to it, and prints what it did.
inline std::vector<std::optional<tune::host_schedule>> tune_host_plan(const ein::plan::program_plan& plan,
                                                                       const tuning_request& r, accumulation accumulate) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const layout l = make_layout(plan);
  const auto calls = emitted_calls(l, backend::host);
  const auto once = make_preparation(l).in_prepare;
  // generators running in parallel tune one at a time (their timings would disturb each other)
  // and each reads the records the one before saved
  cost::detail::file_lock one_at_a_time(r.database_path);
  tune::tuning_database db(r.database_path);
  measure::host_tuning_options o;
  o.accumulate = accumulate;
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
    if (calls[k] || once[k] || empty_box(s.traversal)) continue;
    eoperators.push_back(k);
    auto [key, shape] = measure::host_tuner::identify(s);
    keys[k] = key;
    if (untuned_kernel.count(key) || reader.recorded(s, db)) continue;
    untuned_kernel[key] = untuned.size();
    untuned.push_back(k);
    shapes.push_back(std::move(shape));
  }
  // a search from scratch costs its trials; a reuse, the default and the neighbourhood of where
  // the source's default maps (its best, which the reuse starts from, is not known yet)
  const auto reuse = tune::plan_reuse(
      shapes,
      [&](std::size_t k) {
        const auto space = static_cast<std::int64_t>(tune::host_space(shapes[k]).size());
        return static_cast<double>(std::min(space, o.trials));
      },
      [&](std::size_t j, std::size_t k) {
        const auto from = tune::host_reuse_start(shapes[j], tune::host_default(shapes[j]), shapes[k]);
        return static_cast<double>(1 + tune::host_neighbourhood(shapes[k], from).size());
      });
  std::vector<std::optional<bool>> reused(untuned.size());  // per untuned kernel tuned: whether by reuse
  for (std::size_t i : reuse.order()) {
    o.budget_seconds = r.budget_seconds - elapsed();
    if (o.budget_seconds <= 0) continue;
    measure::host_tuner tuner(toolchain, o);
    const auto& s = *l.steps[untuned[i]].value;
    const std::size_t source = r.reuse ? reuse.source[i] : tune::reuse_plan::scratch;
    const auto t = source == tune::reuse_plan::scratch ? tuner.tune(s, &db)
                                                       : tuner.tune_from(s, *l.steps[untuned[source]].value, db);
    reused[i] = !t.record.reused_from.empty();
  }

  std::vector<std::optional<tune::host_schedule>> schedules(l.steps.size());
  std::size_t scratch = 0, by_reuse = 0, recorded = 0, fixed = 0;
  for (std::size_t k : eoperators) {
    const auto u = untuned_kernel.find(keys[k]);
    if (u == untuned_kernel.end())
      ++recorded;
    else if (reused[u->second])
      ++(*reused[u->second] ? by_reuse : scratch);
    const auto found = reader.recorded(*l.steps[k].value, db);
    const auto* h = found ? std::get_if<tune::host_schedule>(&found->best) : nullptr;
    if (h && tune::host_valid(shape_of(l.steps[k], l), *h))
      schedules[k] = *h;
    else
      ++fixed;
  }
  if (scratch + by_reuse > 0) db.save();
  std::printf("tuning: %zu eOperators tuned from scratch, %zu by reuse, %zu from the tuning database, %zu at the default "
              "schedule, in %.1f s\n",
              scratch, by_reuse, recorded, fixed, elapsed());
  return schedules;
}

}  // namespace ein::codegen::detail
