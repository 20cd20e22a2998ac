// What the host and the CUDA tuner share in measuring one kernel's schedules: the candidates
// taken in batches while the budget lasts, the default's time and the best point's, the points a
// search by reuse adds, and the record kept and what it gives.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/tune/database.hpp"
#include "ein/tune/reuse_rounds.hpp"

namespace ein::measure {

/// What tuning one eOperator gave: its key (eoperator_kernel::key), its record, the schedules
/// refused for differing from the interpreter, and whether it was measured now (false: the
/// database's).
struct eoperator_tuning {
  std::string key;
  tune::tuning_record record;
  std::int64_t refused = 0;
  bool measured = false;
};

/// The points a search adds once its candidates are timed, given the best so far and every
/// point tried (tune::reuse_rounds::next); none: the search is over.
template <class Schedule>
using more_points = std::function<std::vector<Schedule>(const Schedule&, const std::vector<Schedule>&)>;

/// What `rounds` adds to a search: its next round once the last is timed.
template <class Schedule>
more_points<Schedule> next_rounds(tune::reuse_rounds<Schedule>& rounds) {
  return [&rounds](const Schedule& best, const std::vector<Schedule>& tried) { return rounds.next(best, tried); };
}

/// The bookkeeping of one measured search of a kernel's schedules over `candidates` (the
/// default first): batches of `per_batch`, the first always and the others while
/// `budget_seconds` (from construction) last; the schedules timed and refused; the default's
/// time (the least over the batches' turns) and the fastest other point's; then what `more`
/// adds once every candidate is timed. The tuner compiles, checks and times each batch.
///
///     schedule_search<tune::host_schedule> search(candidates, 60, 8);
///     while (search.next_batch())
///       for (std::size_t i = search.from(); i < search.to(); ++i) ...  // passes(), then timed() in turns
template <class Schedule>
class schedule_search {
 public:
  schedule_search(std::vector<Schedule> candidates, double budget_seconds, std::size_t per_batch,
                  more_points<Schedule> more = {})
      : candidates_(std::move(candidates)),
        budget_seconds_(budget_seconds),
        per_batch_(std::max<std::size_t>(per_batch, 1)),
        more_(std::move(more)) {}

  /// Takes the next batch, [from(), to()): false once the candidates are all taken, or the
  /// seconds spent after the first batch.
  bool next_batch() {
    from_ = to_;
    if (from_ >= candidates_.size() || (from_ > 0 && elapsed() >= budget_seconds_)) return false;
    to_ = std::min(candidates_.size(), from_ + per_batch_);
    return true;
  }
  std::size_t from() const { return from_; }
  std::size_t to() const { return to_; }
  const std::vector<Schedule>& candidates() const { return candidates_; }

  /// Whether candidate `i`, which `agrees` with the interpreter or not, is timed: one that differs
  /// is refused, except the default (i == 0), whose difference is an internal error of `tuner` on
  /// kernel `key`. The default, timed in every batch's turns, counts once among the points timed.
  bool passes(std::size_t i, bool agrees, const char* tuner, const std::string& key) {
    if (!agrees) {
      if (i == 0)
        throw internal_error(std::string(tuner) + ": the default schedule differs from the interpreter on " + key);
      ++refused_;
      return false;
    }
    if (i == 0) ++trials_;
    return true;
  }
  /// The default's time in this batch's turns.
  void default_timed(double seconds) {
    default_seconds_ = from_ == 0 ? seconds : std::min(default_seconds_, seconds);
  }
  /// Point `p`'s time in this batch's turns.
  void timed(const Schedule& p, double seconds) {
    ++trials_;
    if (!best_ || seconds < best_seconds_) {
      best_ = p;
      best_seconds_ = seconds;
    }
  }

  /// Ends the batch: once every candidate is timed, adds what `more` gives from the one that leads;
  /// to `progress` (none: quiet), a line of the schedules (`what`) timed, refused, the best and
  /// the default.
  void end_batch(const char* progress, const char* what) {
    if (to_ == candidates_.size() && more_)
      for (auto& p : more_(leads() ? *best_ : candidates_[0], candidates_)) candidates_.push_back(p);
    if (progress)
      std::fprintf(stderr, "%s: %lld of %zu %s timed (%lld refused), the best %.3g s, the default %.3g s\n", progress,
                   static_cast<long long>(trials_), candidates_.size(), what, static_cast<long long>(refused_),
                   leads() ? best_seconds_ : default_seconds_, default_seconds_);
  }

  /// The record of the search: the best point where its time times 1 + `margin` is below the
  /// default's over every batch's turns, else the default.
  tune::tuning_record record(const std::string& reused_from, double margin = 0) const {
    if (best_ && best_seconds_ * (1 + margin) < default_seconds_)
      return {*best_, best_seconds_, default_seconds_, trials_, reused_from, margin};
    return {candidates_[0], default_seconds_, default_seconds_, trials_, reused_from, margin};
  }

  std::int64_t refused() const { return refused_; }
  /// Seconds since the search began.
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  bool leads() const { return best_ && best_seconds_ < default_seconds_; }

  std::vector<Schedule> candidates_;
  double budget_seconds_;
  std::size_t per_batch_;
  more_points<Schedule> more_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t from_ = 0, to_ = 0;
  std::int64_t trials_ = 0, refused_ = 0;
  double default_seconds_ = 0, best_seconds_ = 0;  // best: of the points other than the default
  std::optional<Schedule> best_;
};

}  // namespace ein::measure
