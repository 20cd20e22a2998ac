// The tuning of a cuda plan's eOperator kernels (ein_generate BACKEND cuda TUNE ON): each one's
// schedule read from the tuning database, or measured on this machine's GPU from scratch or from
// a similar kernel's schedule, within a budget in seconds; where no GPU is, the database's records
// alone.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/emission.hpp"
#include "ein/codegen/header.hpp"
#include "ein/cost/cache.hpp"
#include "ein/measure/cuda_records.hpp"
#include "ein/tune/cuda_reuse.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/recorded_sources.hpp"
#include "ein/tune/reuse_plan.hpp"
#if defined(EIN_HAVE_CUDA_TIMER)
#include "ein/measure/cuda_tuner.hpp"
#endif

namespace ein::generator::detail {

#if defined(EIN_HAVE_CUDA_TIMER)
// Tunes the kernels `untuned` (steps of `l` whose kernels `db` has no record of on the GPU, each
// of shape `shapes[i]`) on device 0 while `budget_seconds` last, in the order of their reuse plan
// (tune::plan_cuda_reuse, decision 0029): a root from scratch, each other kernel from its source's
// record, a source being a kernel of `untuned` or one `db` holds a record of (every one from
// scratch without `reuse`). Returns the GPU's device key, and how many
// were tuned from scratch and by reuse.
inline std::pair<tune::device_key, std::pair<std::size_t, std::size_t>> tune_on_gpu(
    const codegen::named_plan& l, const std::vector<std::size_t>& untuned, const std::vector<tune::kernel_shape>& shapes,
    tune::tuning_database& db, double budget_seconds, bool reuse_schedules, codegen::accumulation accumulate) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  measure::cuda_tuning_options o;
  o.accumulate = accumulate;
  o.progress = "ein_generate: tuning";
  const tune::device_key device = measure::cuda_tuning_device();
  db.expect(device);
  const auto recorded = !reuse_schedules ? std::vector<tune::recorded_kernel>{} : tune::reuse_sources(
      db.records(device), shapes, [](const tune::kernel_shape& k, const tune::schedule& best) {
        const auto* c = std::get_if<tune::cuda_schedule>(&best);
        return c && tune::cuda_valid(k, *c);
      });
  const auto reuse = tune::plan_cuda_reuse(shapes, o.trials, recorded);
  std::size_t scratch = 0, by_reuse = 0;
  for (std::size_t i : reuse.order()) {
    o.budget_seconds = budget_seconds - elapsed();
    if (i >= untuned.size() || o.budget_seconds <= 0) continue;
    measure::cuda_tuner tuner(0, o);
    const auto& s = *l.steps[untuned[i]].value;
    const std::size_t source = reuse_schedules ? reuse.source[i] : tune::reuse_plan::scratch;
    const auto t = source == tune::reuse_plan::scratch ? tuner.tune(s, &db)
                   : source < untuned.size()
                       ? tuner.tune_from(s, *l.steps[untuned[source]].value, db)
                       : tuner.tune_from(s, recorded[source - untuned.size()].key, recorded[source - untuned.size()].shape, db);
    ++(t.record.reused_from.empty() ? scratch : by_reuse);
  }
  return {device, {scratch, by_reuse}};
}
#endif

// The schedules of the eOperator kernels of `e`'s plan on cuda (by step of its layout; none: the
// default), computing as the plan's codegen::accumulation asks. With a GPU (and a search program built with the
// CUDA timer): each kernel's record in the database where it holds one of this GPU; the others
// tuned (measure::cuda_tuner, tune_on_gpu: from scratch without `reuse`) while `budget_seconds`
// last; else the default. The weight transforms prepare() runs once keep the default. Without
// a GPU it says that CUDA tuning needs one and reads the records of the database's one GPU
// (measure::recorded_gpu), where it holds them, else leaves the defaults. A schedule that is no
// point of the step's own space (the tuned kernel stands alone, its reads starting at 0) stays
// the default. Holds the database's file lock throughout, saves the database when a tuning added
// to it, and prints what it did.
inline std::vector<std::optional<tune::cuda_schedule>> tune_cuda_plan(const codegen::emission& e,
                                                                       const std::string& database_path,
                                                                       double budget_seconds, bool reuse) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const codegen::named_plan& l = e.steps;
  const auto calls = codegen::emitted_calls(l, codegen::backend::cuda);
  const auto& once = e.prep.in_prepare;
  // generators running in parallel tune one at a time (their timings would disturb each other)
  // and each reads the records the one before saved
  cost::detail::file_lock one_at_a_time(database_path);
  tune::tuning_database db(database_path);

  // the eOperator steps' kernels
  std::vector<std::size_t> eoperators;
  std::vector<std::string> keys(l.steps.size());
  std::vector<tune::kernel_shape> shapes(l.steps.size());
  for (std::size_t k = 0; k < l.steps.size(); ++k) {
    if (calls[k] || once[k] || codegen::empty_box(l.steps[k].value->traversal)) continue;
    eoperators.push_back(k);
    std::tie(keys[k], shapes[k]) = measure::identify_cuda_kernel(*l.steps[k].value);
  }

  std::optional<tune::device_key> device;
  std::size_t scratch = 0, by_reuse = 0;
  std::string why = "this ein_search was built without the CUDA toolkit";
#if defined(EIN_HAVE_CUDA_TIMER)
  if (measure::gpu_present(&why)) {
    // the first step of each kernel the database has no record of on this GPU
    const tune::device_key gpu = measure::cuda_tuning_device();
    std::vector<std::size_t> untuned;
    std::vector<tune::kernel_shape> untuned_shapes;
    std::map<std::string, bool> seen;
    for (std::size_t k : eoperators) {
      if (seen[keys[k]] || measure::recorded_cuda(gpu, keys[k], shapes[k], db)) continue;
      seen[keys[k]] = true;
      untuned.push_back(k);
      untuned_shapes.push_back(shapes[k]);
    }
    std::pair<std::size_t, std::size_t> tuned;
    std::tie(device, tuned) = tune_on_gpu(l, untuned, untuned_shapes, db, budget_seconds, reuse, e.plan.accumulate);
    std::tie(scratch, by_reuse) = tuned;
  }
#endif
  if (!device) {
    device = measure::recorded_gpu(db);
    std::printf("tuning: CUDA tuning needs a GPU (%s); the eOperators take %s\n", why.c_str(),
                device ? ("the tuning database's records of " + device->name + " where it has them, else their "
                          "default schedules").c_str()
                       : "their default schedules (the tuning database holds no one GPU's records)");
  }

  std::vector<std::optional<tune::cuda_schedule>> schedules(l.steps.size());
  std::size_t recorded = 0, fixed = 0;
  for (std::size_t k : eoperators) {
    const auto found = device ? measure::recorded_cuda(*device, keys[k], shapes[k], db) : std::nullopt;
    const auto* c = found ? std::get_if<tune::cuda_schedule>(&found->best) : nullptr;
    if (c && tune::cuda_valid(codegen::shape_of(l.steps[k], l), *c)) {
      schedules[k] = *c;
      ++recorded;
    } else {
      ++fixed;
    }
  }
  if (scratch + by_reuse > 0) db.save();
  std::printf("tuning: %zu CUDA kernels tuned from scratch, %zu by reuse; %zu eOperators under a recorded schedule, %zu "
              "at the default, in %.1f s\n",
              scratch, by_reuse, recorded, fixed, elapsed());
  return schedules;
}

}  // namespace ein::generator::detail
