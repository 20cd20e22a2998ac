// The host tuner: an eOperator's schedules drawn from its space, compiled a batch at a time,
// each checked once against the interpreter, timed in turns with the default point; the best is
// kept in the tuning database.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/header.hpp"
#include "ein/codegen/kernel_shape.hpp"
#include "ein/cost/measured.hpp"
#include "ein/error.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/measure/drawn_schedules.hpp"
#include "ein/measure/eoperator_kernel.hpp"
#include "ein/measure/host_batch.hpp"
#include "ein/measure/host_machine.hpp"
#include "ein/measure/host_timer.hpp"
#include "ein/measure/schedule_search.hpp"
#include "ein/measure/timing.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/host_reuse.hpp"
#include "ein/tune/reuse_rounds.hpp"
#include "ein/tune/host_schedule.hpp"
#include "ein/tune/schedule_json.hpp"

namespace ein::measure {

/// How the host tuner searches: its budget (wall clock, compilation included, and schedules
/// timed, the default among them), how many schedules compile into one shared object, the draw,
/// the timing of each turn and what times the turns (time_in_turns; a test's stub), the least
/// margin a point must beat the default by (noise_margin), the rounds a search by reuse may take
/// (tune::reuse_rounds), and where progress lines go (`<progress>: ...` on stderr; none: quiet).
struct host_tuning_options {
  double budget_seconds = 60;
  std::int64_t trials = 32;
  int reuse_rounds = 4;
  std::size_t per_batch = 8;
  std::uint64_t seed = 1;
  timing_options timing;
  std::function<std::vector<timed>(const std::vector<std::function<void()>>&, const timing_options&)> turns =
      time_in_turns;
  double least_margin = 0.02;
  batch_options batch;
  codegen::accumulation accumulate = codegen::accumulation::element;
  const char* progress = nullptr;
};

/// What tuning one eOperator gave, as the CUDA tuner's cuda_tuning: its key (cost::kernel_key's),
/// its record, the schedules refused and whether it was measured now.
using host_tuning = eoperator_tuning;

/// The margin by which a point must beat the default's time `fixed` (timed in turns with it) to be
/// kept, its time times 1 + margin below the default's: the default's own spread in those turns
/// (its median over its fastest, less one: how much the machine's load moved one kernel's runs),
/// `least` at least, and at most what a record holds. A busy machine then keeps the default rather
/// than a point that won by noise, and still a point many times faster (a team of threads waiting
/// out scheduler ticks).
inline double noise_margin(const timed& fixed, double least) {
  const double spread = fixed.seconds > 0 ? fixed.median / fixed.seconds - 1 : 0;
  return std::min(std::isfinite(spread) ? std::max(spread, least) : least, tune::tuning_database::max_margin);
}

/// Tunes eOperators' host schedules on this machine with the build's toolchain.
class host_tuner {
 public:
  explicit host_tuner(host_toolchain toolchain, host_tuning_options o = {})
      : toolchain_(std::move(toolchain)), options_(std::move(o)), device_(tuning_device(toolchain_)) {}

  const tune::device_key& device() const { return device_; }
  /// Shared objects compiled so far (none when every tuning came from the database).
  std::size_t batches() const { return batches_; }

  /// `db`'s record of eOperator `s` on this device where its schedule is a point of the kernel's
  /// space; what tune() answers without measuring.
  std::optional<tune::tuning_record> recorded(const ir::scope& s, const tune::tuning_database& db) const {
    const kernel k(s);
    return recorded(k.key, k.shape, db);
  }

  /// The key and the shape of eOperator `s` as the tuner and its database see it
  /// (cost::flat_eoperator makes it a kernel of its own).
  static std::pair<std::string, tune::kernel_shape> identify(const ir::scope& s) {
    const kernel k(s);
    return {k.key, k.shape};
  }

  /// The best host schedule of eOperator `s` (a scope as the plan holds it; cost::flat_eoperator
  /// makes it a kernel of its own): `db`'s record where it holds one of this device that is a
  /// point of the kernel's space, else measured: the default first, then points drawn from the
  /// space, `per_batch` compiled at a time, until the trials or the seconds are spent; each
  /// schedule's output compared once with the interpreter's on the same random inputs (one that
  /// differs is refused, never timed), the rest timed in turns with the default, each schedule's
  /// time the fastest of its runs (decision 0025); the best point is kept only where it beats the
  /// default by more than the noise (noise_margin over every batch's turns, kept in the record),
  /// else the default is. The measured record is stored in `db` (the caller saves it). Throws
  /// user_error where the toolchain cannot compile the kernels.
  host_tuning tune(const ir::scope& s, tune::tuning_database* db = nullptr) {
    const kernel k(s);
    if (db)
      if (auto r = recorded(k.key, k.shape, *db)) return {k.key, *r, 0, false};
    return measured(k, drawn(k.shape), "", db);
  }

  /// The best host schedule of eOperator `s` searched from `source`'s (ETO's reuse, decision
  /// 0029): `db`'s record of `s` where it holds one, as tune(); else, from `db`'s record of
  /// `source`, the default, then the rounds (tune::reuse_rounds, `reuse_rounds` of them) of
  /// tune::host_neighbourhood from tune::host_reuse_start (the trials budget does not cut them,
  /// the seconds do), measured as tune() measures; the record says `reused_from` `source`'s key.
  /// Without a record of `source`, tune(s, &db).
  /// @pre tune::reusable(identify(source).second, identify(s).second)
  host_tuning tune_from(const ir::scope& s, const ir::scope& source, tune::tuning_database& db) {
    const kernel from(source);
    return tune_from(s, from.key, from.shape, db);
  }

  /// As above, from the record of the kernel of key `source_key` and shape `source_shape` (a
  /// kernel of an earlier build, as its record keeps it: tune::tuning_record::shape).
  host_tuning tune_from(const ir::scope& s, const std::string& source_key, const tune::kernel_shape& source_shape,
                        tune::tuning_database& db) {
    const kernel k(s);
    if (auto r = recorded(k.key, k.shape, db)) return {k.key, *r, 0, false};
    const auto parent = recorded(source_key, source_shape, db);
    if (!parent) return measured(k, drawn(k.shape), "", &db);
    tune::reuse_rounds<tune::host_schedule> rounds(
        tune::host_reuse_start(source_shape, std::get<tune::host_schedule>(parent->best), k.shape),
        [&](const tune::host_schedule& p) { return tune::host_neighbourhood(k.shape, p); }, options_.reuse_rounds);
    return measured(k, rounds.first_after(tune::host_default(k.shape)), source_key, &db, next_rounds(rounds));
  }

 private:
  // An eOperator as a kernel of its own, its program reading every tensor of its body as an input.
  struct kernel : eoperator_kernel {
    explicit kernel(const ir::scope& s) : eoperator_kernel(s, host_timer::eoperator_inputs_program, "host_tuner") {}
  };

  // `candidates` (the default first), then what `more` adds, of kernel `k` measured: see tune().
  // The record says it reused `reused_from`'s schedule (empty: from scratch).
  host_tuning measured(const kernel& k, std::vector<tune::host_schedule> candidates, const std::string& reused_from,
                       tune::tuning_database* db, more_points<tune::host_schedule> more = {}) {
    host_tuning result;
    result.key = k.key;
    const ir::program& program = k.program;
    const ein::plan::program_plan& plan = k.plan;
    const codegen::named_plan& named = k.named;
    const double tolerance = codegen::tolerance(named, codegen::backend::host, options_.accumulate, false);
    schedule_search<tune::host_schedule> search(std::move(candidates), options_.budget_seconds, options_.per_batch,
                                                std::move(more));
    eval::dense expected;                   // the interpreter's output on the inputs every case binds
    std::unique_ptr<host_batch> first;      // holds the default's case, timed in every turn
    std::unique_ptr<host_batch::prepared_case> fixed;
    double margin = std::clamp(options_.least_margin, 0.0, tune::tuning_database::max_margin);
    while (search.next_batch()) {
      const std::size_t from = search.from(), to = search.to();
      std::vector<codegen::timing_case> cases;
      for (std::size_t i = from; i < to; ++i)
        cases.push_back({"ein_tune_" + std::to_string(i), plan, {search.candidates()[i]}});
      auto batch = std::make_unique<host_batch>(std::move(cases), toolchain_, options_.accumulate, options_.batch);
      ++batches_;
      std::vector<std::unique_ptr<host_batch::prepared_case>> passed;
      std::vector<tune::host_schedule> schedules;
      for (std::size_t i = from; i < to; ++i) {
        auto c = batch->prepare(i - from, input_seed);
        if (i == 0) expected = interpreter_output(*c, program);
        c->run();
        eval::dense got(expected.shape, expected.lower);
        got.data = c->values(program.outputs[0]);
        if (!search.passes(i, eval::max_rel_error(got, expected) <= tolerance, "host_tuner", result.key)) continue;
        if (i == 0) {
          fixed = std::move(c);
        } else {
          passed.push_back(std::move(c));
          schedules.push_back(search.candidates()[i]);
        }
      }
      std::vector<std::function<void()>> turns{[&] { fixed->run(); }};
      for (auto& c : passed) turns.push_back([&c] { c->run(); });
      const auto times = options_.turns(turns, options_.timing);
      search.default_timed(times[0].seconds);
      margin = std::max(margin, noise_margin(times[0], options_.least_margin));
      for (std::size_t p = 0; p < schedules.size(); ++p) search.timed(schedules[p], times[p + 1].seconds);
      if (from == 0) first = std::move(batch);
      search.end_batch(options_.progress, "schedules");
    }
    // the default keeps its place unless a point beat its fastest run over every turn by more than
    // the noise
    result.record = search.record(reused_from, margin);
    result.record.shape = k.shape;
    result.refused = search.refused();
    if (options_.progress)
      std::fprintf(stderr, "%s: kept %s (a point had to beat the default by %.1f%%) in %.1f s\n", options_.progress,
                   tune::schedule_json(result.record.best).dump().c_str(), 100 * margin, search.elapsed());
    result.measured = true;
    if (db) db->store(device_, result.key, result.record);
    return result;
  }

  std::optional<tune::tuning_record> recorded(const std::string& key, const tune::kernel_shape& shape,
                                              const tune::tuning_database& db) const {
    const auto* r = db.find(device_, key);
    if (!r) return std::nullopt;
    const auto* h = std::get_if<tune::host_schedule>(&r->best);
    if (!h || !tune::host_valid(shape, *h)) return std::nullopt;
    return *r;
  }

  // The seed of the inputs every case binds.
  static constexpr std::uint64_t input_seed = 1;

  // The default point of `shape`'s space, then up to trials - 1 other points in a random order.
  std::vector<tune::host_schedule> drawn(const tune::kernel_shape& shape) const {
    return drawn_schedules(tune::host_default(shape), tune::host_space(shape), options_.seed, options_.trials);
  }

  // The interpreter's output of `program` on the inputs case `c` binds.
  static eval::dense interpreter_output(const host_batch::prepared_case& c, const ir::program& program) {
    eval::bindings env;
    for (auto& t : program.tensors) {
      eval::dense d(t.shape);
      d.data = c.values(t.name);
      env[t.name] = std::move(d);
    }
    return eval::evaluate(program, env).at(program.outputs[0]);
  }

  host_toolchain toolchain_;
  host_tuning_options options_;
  tune::device_key device_;
  std::size_t batches_ = 0;
};

}  // namespace ein::measure
