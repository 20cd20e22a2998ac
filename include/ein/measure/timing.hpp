// How the host timer takes a time: warm-up, then the fastest of repeated runs, fewer for slow
// kernels; and the same for several kernels run in turns, for comparing them.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace ein::measure {

/// A time: the fastest of `runs` timed runs (`seconds`) and their median, in seconds. The fastest
/// is what a kernel costs: on a machine shared with other work, the other processes only ever
/// add time (two OpenMP threads on two busy cores wait out a scheduler tick, 4 ms, in most runs),
/// and the median, beside it, says how much (docs/decisions/0025).
struct timed {
  double seconds = 0, median = 0;
  int runs = 0;
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

// The fastest and the median of `runs` times.
inline timed summary(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n == 0) return {};
  return {v.front(), n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, static_cast<int>(n)};
}

template <class F>
double seconds_of(F& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace detail

/// The time of `f` as `o` says.
template <class F>
timed time_runs(F&& f, const timing_options& o = {}) {
  double first = 0;
  for (int i = 0; i < std::max(o.warmup, 1); ++i) first = detail::seconds_of(f);
  const int runs = first > o.very_slow_seconds ? 1 : first > o.slow_seconds ? o.slow_runs : o.runs;
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(detail::seconds_of(f));
  return detail::summary(std::move(t));
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
