// How the host timer takes a time: warm-up, then the fastest of repeated runs that no other
// process disturbed, fewer for slow kernels; and several kernels run in turns, for comparing them.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ein/measure/median.hpp"

namespace ein::measure {

/// A time: the fastest of `runs` timed runs (`seconds`) and their median, in seconds. The fastest
/// is what a kernel costs: on a machine shared with other work, the other processes only ever
/// add time (two OpenMP threads on two busy cores wait out a scheduler tick, 4 ms, in most runs),
/// and the median, beside it, says how much (docs/decisions/0025). `disturbed`: runs left out
/// because the process's threads waited for a core meanwhile; where every run was
/// (`undisturbed` false), `seconds` is the fastest of them all and says only that the kernel
/// takes at most that.
struct timed {
  double seconds = 0, median = 0;
  int runs = 0;
  int disturbed = 0;
  bool undisturbed = true;
};

/// `warmup` runs (caches, pages, threads), then `runs` timed runs; a kernel whose warm-up
/// took over `slow_seconds` gets `slow_runs` runs, and one over `very_slow_seconds` one run (a
/// naive loop nest over a large convolution can take seconds, and it only needs to be known slow).
struct timing_options {
  int warmup = 1;
  int runs = 11;
  double slow_seconds = 0.02;
  int slow_runs = 3;
  double very_slow_seconds = 0.5;
};

namespace detail {

// Nanoseconds the threads of this process have waited on a run queue, runnable while another
// process held their core (the second field of /proc/self/task/<thread>/schedstat); 0 where
// the kernel does not say, which takes every run as undisturbed.
inline std::int64_t run_queue_wait_ns() {
  std::int64_t total = 0;
  DIR* tasks = ::opendir("/proc/self/task");
  if (!tasks) return 0;
  while (const dirent* t = ::readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    std::ifstream stat(std::string("/proc/self/task/") + t->d_name + "/schedstat");
    std::int64_t on_cpu = 0, waited = 0;
    if (stat >> on_cpu >> waited) total += waited;
  }
  ::closedir(tasks);
  return total;
}

// The fastest and the median of `runs` times.
inline timed summary(std::vector<double> v) {
  if (v.empty()) return {};
  const double fastest = *std::min_element(v.begin(), v.end());
  const int runs = static_cast<int>(v.size());
  return {fastest, median(std::move(v)), runs};
}

template <class F>
double seconds_of(F& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace detail

/// The time of `f` as `o` says, from the runs during which no thread of this process waited for a
/// core for more than a twentieth of the run (or 20 µs): another process that holds a core while a kernel's
/// OpenMP team runs delays each parallel region by up to a scheduler tick, in every run for as long
/// as it runs (a compiler of the same build: docs/decisions/0025). A kernel under `slow_seconds`
/// gets up to three times its runs again to find undisturbed ones; where none is, the result
/// is the fastest of them all, with every run counted `disturbed`.
template <class F>
timed time_runs(F&& f, const timing_options& o = {}) {
  double first = 0;
  for (int i = 0; i < std::max(o.warmup, 1); ++i) first = detail::seconds_of(f);
  const int runs = first > o.very_slow_seconds ? 1 : first > o.slow_seconds ? o.slow_runs : o.runs;
  const int attempts = first > o.slow_seconds ? runs : 4 * runs;
  std::vector<double> clean, all;
  for (int i = 0; i < attempts && static_cast<int>(clean.size()) < runs; ++i) {
    const std::int64_t waited = detail::run_queue_wait_ns();
    const double t = detail::seconds_of(f);
    all.push_back(t);
    const double wait = static_cast<double>(detail::run_queue_wait_ns() - waited) * 1e-9;
    if (wait <= std::max(t / 20, 20e-6)) clean.push_back(t);
  }
  const int disturbed = static_cast<int>(all.size() - clean.size());
  const bool undisturbed = !clean.empty();
  timed r = detail::summary(undisturbed ? std::move(clean) : std::move(all));
  r.disturbed = disturbed;
  r.undisturbed = undisturbed;
  return r;
}

/// The time of each of `fs`, run in turns (one run of each per round, after a warm-up
/// round), so that a change in the machine's load meanwhile reaches all of them alike: what
/// comparing two plans needs. `rounds` follows the slowest warm-up as time_runs chooses runs.
inline std::vector<timed> time_in_turns(const std::vector<std::function<void()>>& fs, const timing_options& o = {}) {
  double slowest = 0;
  for (int i = 0; i < std::max(o.warmup, 1); ++i)
    for (auto& f : fs) slowest = std::max(slowest, detail::seconds_of(f));
  const int rounds = slowest > o.very_slow_seconds ? 1 : slowest > o.slow_seconds ? o.slow_runs : o.runs;
  std::vector<std::vector<double>> t(fs.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < fs.size(); ++i) t[i].push_back(detail::seconds_of(fs[i]));
  std::vector<timed> out;
  for (auto& ti : t) out.push_back(detail::summary(std::move(ti)));
  return out;
}

}  // namespace ein::measure
