// The tuning of a host plan's eOperators (ein_generate TUNE ON): each one's schedule measured on
// this machine or read from the tuning database, within a budget in seconds.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/header.hpp"
#include "ein/cost/cache.hpp"
#include "ein/measure/host_tuner.hpp"
#include "ein/tune/database.hpp"

namespace ein::codegen::detail {

// What `--tune on` asks for: the database file, the toolchain file that compiles eOperators, and
// the seconds tuning may take in all.
struct tuning_request {
  std::string database_path, toolchain_path;
  double budget_seconds = 600;
};

// The schedules of `plan`'s eOperator steps (by step of make_layout; none: the default), computing
// as `accumulate` asks: each step's record in the database where it holds one of this machine,
// else tuned (measure::host_tuner) while the budget lasts, else the default. A schedule that is no
// point of the step's own space (the tuned kernel stands alone, its reads starting at 0) stays
// the default. Holds the database's file lock throughout, saves the database when a tuning added
// to it, and prints what it did.
inline std::vector<std::optional<tune::host_schedule>> tune_host_plan(const ein::plan::program_plan& plan,
                                                                       const tuning_request& r, accumulation accumulate) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const layout l = make_layout(plan);
  const auto calls = emitted_calls(l, backend::host);
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
  db.expect(measure::tuning_device(toolchain));
  std::vector<std::optional<tune::host_schedule>> schedules(l.steps.size());
  std::size_t tuned = 0, recorded = 0, fixed = 0;
  for (std::size_t k = 0; k < l.steps.size(); ++k) {
    auto& s = l.steps[k];
    if (calls[k] || empty_box(s.value->traversal)) continue;
    o.budget_seconds = r.budget_seconds - elapsed();
    measure::host_tuner tuner(toolchain, o);
    std::optional<tune::tuning_record> found = tuner.recorded(*s.value, db);
    if (found) {
      ++recorded;
    } else if (o.budget_seconds > 0) {
      found = tuner.tune(*s.value, &db).record;
      ++tuned;
    }
    const auto* h = found ? std::get_if<tune::host_schedule>(&found->best) : nullptr;
    if (h && tune::host_valid(shape_of(s, l), *h))
      schedules[k] = *h;
    else
      ++fixed;
  }
  if (tuned > 0) db.save();
  std::printf("tuning: %zu eOperators tuned, %zu from the tuning database, %zu at the default schedule, in %.1f s\n",
              tuned, recorded, fixed, elapsed());
  return schedules;
}

}  // namespace ein::codegen::detail
