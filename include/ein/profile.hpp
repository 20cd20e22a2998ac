// ein::profile: where a prepared plan's runs spend their time, step by step, as the plan's
// description names the steps.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ein/dispatch/prepare.hpp"
#include "ein/error.hpp"
#include "ein/runtime/bindings.hpp"
#include "ein/runtime/plan.hpp"

namespace ein {

/// How ein::profile runs a prepared plan: `warmup` runs first, untimed; then rounds of one
/// unobserved run and one observed run, at least `min_runs` and at most `max_runs` rounds, until
/// `seconds` have passed.
struct profile_options {
  int warmup = 1;
  int min_runs = 3;
  int max_runs = 100;
  double seconds = 1.0;
  runtime::stream stream = nullptr;  // where a cuda plan runs (null: the default stream); host plans ignore it
};

/// What profile_report::table() shows: the `rows` slowest steps, slowest first, where there are
/// more (all of them, in the order they run, by default), each description cut to `width` bytes.
struct profile_table_options {
  std::size_t rows = static_cast<std::size_t>(-1);
  std::size_t width = 100;
};

/// The steps of a prepared plan's run with their times (ein::profile): medians over the observed
/// runs, beside the median of as many unobserved ones, which also count what lies between the
/// steps (the binding checks, the temporaries' allocation).
struct profile_report {
  struct step {
    std::size_t index = 0;     // in the plan: the (index + 1)-th line of its description
    std::string description;   // that line, e.g. "t1 = library matmul(A=z+0, ...)  [temporary]"
    double median_ms = 0;
    double fastest_ms = 0;
  };
  std::string plan;          // the description's first line: name, backend, search
  std::vector<step> steps;   // in the order a run runs them
  int runs = 0;              // observed runs, and as many unobserved ones
  double run_median_ms = 0;  // of the unobserved runs

  /// The steps' medians added up.
  double steps_ms() const {
    double total = 0;
    for (auto& s : steps) total += s.median_ms;
    return total;
  }

  /// The report as a table: the plan's line, a row per step (its index, median, share of the
  /// steps' sum and description, cut at a character boundary), the time of the steps left out,
  /// then the steps' sum beside the run's median:
  ///   step        ms   share  what
  ///      1     1.997   63.0%  t2 = eOperator L_{n:[0,1), h:[0,4), ...
  std::string table(const profile_table_options& o = {}) const {
    std::vector<const step*> shown;
    for (auto& s : steps) shown.push_back(&s);
    if (o.rows < shown.size()) {
      std::stable_sort(shown.begin(), shown.end(), [](const step* a, const step* b) { return a->median_ms > b->median_ms; });
      shown.resize(o.rows);
    }
    std::string r = plan + "\n step        ms   share  what\n";
    const double total = steps_ms();
    double left_out = total;
    char line[128];
    for (auto* s : shown) {
      std::snprintf(line, sizeof line, "%5zu %9.3f  %5.1f%%  ", s->index, s->median_ms,
                    total > 0 ? 100.0 * s->median_ms / total : 0.0);
      r += line + cut(s->description, o.width) + "\n";
      left_out -= s->median_ms;
    }
    if (shown.size() < steps.size()) {
      std::snprintf(line, sizeof line, "      %9.3f  %5.1f%%  the %zu other steps\n", left_out,
                    total > 0 ? 100.0 * left_out / total : 0.0, steps.size() - shown.size());
      r += line;
    }
    std::snprintf(line, sizeof line, " steps: %.3f ms (sum of the steps' medians over %d runs); a run: %.3f ms", total,
                  runs, run_median_ms);
    return r + line + " (median of " + std::to_string(runs) + " runs not observed)\n";
  }

 private:
  static std::string cut(const std::string& text, std::size_t width) {
    if (text.size() <= width) return text;
    std::size_t end = width;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
    return text.substr(0, end) + "...";
  }
};

namespace detail {

// How ein::profile times the runs of a plan of backend B: a step observer that also times whole runs.
//   double run_ms(F&& run, runtime::stream): the time of run(), one unobserved run, in ms;
//   restart(): an observed run starts; finish(): it has been issued, and its times are taken;
//   order(), ms(): the steps that run began, and the time of each.
// The host's is below, on the steady clock; a cuda plan's, on CUDA events, is in ein/profile_cuda.hpp.
template <runtime::backend B>
class step_timer {
  static_assert(B == runtime::backend::host,
                "ein::profile: a cuda plan's steps are timed with CUDA events: include \"ein/profile_cuda.hpp\" (in "
                "a .cpp file of a target that links CUDA::cudart)");
};

template <>
class step_timer<runtime::backend::host> final : public runtime::step_observer {
 public:
  using clock = std::chrono::steady_clock;

  template <class F>
  double run_ms(F&& run, runtime::stream) {
    const auto t0 = clock::now();
    run();
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  }
  void begin(std::size_t step, runtime::stream) override {
    order_.push_back(step);
    start_ = clock::now();
  }
  void end(std::size_t step, runtime::stream) override {
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - start_).count();
    if (order_.empty() || order_.back() != step)
      throw internal_error("ein::profile: step " + std::to_string(step) + " ended without beginning");
    ms_.push_back(ms);
  }

  void restart() {
    order_.clear();
    ms_.clear();
  }
  void finish() {}
  const std::vector<std::size_t>& order() const { return order_; }
  const std::vector<double>& ms() const { return ms_; }

 private:
  clock::time_point start_;
  std::vector<std::size_t> order_;  // the steps begun in this run
  std::vector<double> ms_;          // the time of each step ended in this run
};

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Line k of `text` (lines end with '\n'), or empty past its last line.
inline std::string line_of(std::string_view text, std::size_t k) {
  std::size_t at = 0;
  for (; k > 0 && at < text.size(); --k) {
    const std::size_t next = text.find('\n', at);
    at = next == std::string_view::npos ? text.size() : next + 1;
  }
  if (at >= text.size()) return {};
  return std::string(text.substr(at, text.find('\n', at) - at));
}

}  // namespace detail

/// Runs prepared plan `net` on `b` (as net.run() takes them) as `o` says and returns each step's
/// time: `std::puts(ein::profile(net, {{"A", a}, {"conv", out}}).table().c_str());`. The plan's
/// outputs are written by every run. A host plan's steps are timed on the steady clock (a step's
/// time includes the wait for its OpenMP team); a cuda plan's with CUDA events on `o.stream`,
/// which needs ein/profile_cuda.hpp (a step's time then includes the events' own cost, some
/// microseconds; the run's median is taken without them).
template <class Program, bool Generated>
profile_report profile(const prepared<Program, Generated>& net, const runtime::bindings& b,
                       const profile_options& o = {}) {
  static_assert(Generated,
                "ein::profile: no generated plan for this program: include the header that ein_generate wrote "
                "for it (the interpreter has no steps to time)");
  using plan = runtime::generated_plan<std::remove_cvref_t<Program>>;
  if (o.min_runs < 1 || o.max_runs < o.min_runs || o.warmup < 0 || !(o.seconds >= 0))
    throw user_error("ein::profile: options want 0 <= warmup, 1 <= min_runs <= max_runs and seconds >= 0");
  const runtime::bindings named(b.items(), "ein::profile");
  detail::step_timer<plan::target> observed;
  for (int k = 0; k < o.warmup; ++k) net.run(named, o.stream);
  using clock = std::chrono::steady_clock;
  std::vector<double> runs;
  std::vector<std::vector<double>> step_ms;
  std::vector<std::size_t> order;
  const auto start = clock::now();
  while (static_cast<int>(runs.size()) < o.max_runs &&
         (static_cast<int>(runs.size()) < o.min_runs ||
          std::chrono::duration<double>(clock::now() - start).count() < o.seconds)) {
    runs.push_back(observed.run_ms([&] { net.run(named, o.stream); }, o.stream));
    observed.restart();
    net.run(named, o.stream, &observed);
    observed.finish();
    if (runs.size() == 1) {
      order = observed.order();
      step_ms.resize(order.size());
    }
    if (observed.order() != order || observed.ms().size() != order.size())
      throw internal_error("ein::profile: two runs of plan " + std::string(plan::name) + " ran different steps");
    for (std::size_t k = 0; k < order.size(); ++k) step_ms[k].push_back(observed.ms()[k]);
  }
  profile_report r;
  r.plan = detail::line_of(plan::description, 0);
  r.runs = static_cast<int>(runs.size());
  r.run_median_ms = detail::median_of(runs);
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::string what = detail::line_of(plan::description, order[k] + 1);
    what.erase(0, what.find_first_not_of(' '));
    r.steps.push_back({order[k], what.empty() ? "step " + std::to_string(order[k]) : what,
                       detail::median_of(step_ms[k]), *std::min_element(step_ms[k].begin(), step_ms[k].end())});
  }
  return r;
}

/// ein::profile with the bindings written in place: errors in them name ein::profile.
template <class Program, bool Generated>
profile_report profile(const prepared<Program, Generated>& net, std::initializer_list<runtime::binding> b,
                       const profile_options& o = {}) {
  return ein::profile(net, runtime::bindings(std::vector<runtime::binding>(b), "ein::profile"), o);
}

}  // namespace ein
