// ein's search program (search.cpp), the second step of ein_generate's stage 1: reads the model
// file a model's program wrote (model_file.hpp), searches for its plan (or takes it as written),
// and writes the generated header and the JSON report. Built once per build tree, whatever the
// number of models.
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "ein/cost/measured.hpp"
#include "ein/ein_search.hpp"
#include "ein/measure/machine_profile.hpp"
#include "cuda_tuning.hpp"
#include "gradient.hpp"
#include "host_measured.hpp"
#include "host_tuning.hpp"
#include "model_file.hpp"
#if defined(EIN_HAVE_CUDA_TIMER)
#include "ein/measure/gpu_timer.hpp"
#endif

namespace ein::generator {

namespace detail {

// Writes `path` every run (the content is deterministic; a fresh time stamp tells the build
// that the generation step is done).
inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw user_error("ein_generate: cannot write " + path);
}

// The file name of `path` (what the plan names its profile by: no build paths in headers).
inline std::string file_name(const std::string& path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// What the search program was asked for, beyond the model: the cost model (`--cost`), the
// profiles, the cache, the build the search prices for and, for measuring on the host, the
// toolchain that compiles eOperators and how much to measure.
struct search_request {
  std::string cost = "auto", profile_path, cache_path, toolchain_path, machine_profile_path;
  std::string tuning_database_path;  // --tune on: the host timer runs eOperators under its records
  codegen::backend plan_for = codegen::backend::host;
  codegen::accumulation accumulate = codegen::accumulation::element;  // how the plan's eOperators compute (--accumulate)
  bool onednn = false;
  search::program_search relax;
  host_measuring measuring;
};

// The cost model of the search and why it was chosen (`--cost auto|measured|roofline`).
struct cost_choice {
  std::unique_ptr<cost::roofline> roofline;  // the model, or the measured model's fallback
  std::unique_ptr<cost::measurement_cache> cache;
  std::unique_ptr<tune::tuning_database> tuning;  // the host timer's tuned schedules (--tune on)
  std::unique_ptr<cost::timer> timer;
  std::unique_ptr<cost::measured> measured;
  std::string why;
  std::string profile_file;  // the file the roofline's profile came from
  bool cache_only = false;  // measured without a GPU: every kernel must be in the cache
  // Measuring on the host: the timer, and the toolchain that compiles eOperators (if any).
  measure::host_timer* host = nullptr;
  std::optional<measure::host_toolchain> toolchain;

  const cost::model& model() const { return measured ? static_cast<const cost::model&>(*measured) : *roofline; }
};

// Whether a timer can run kernels here; `why_not` says why not.
inline bool can_time(std::string& why_not) {
#if defined(EIN_HAVE_CUDA_TIMER)
  return measure::gpu_present(&why_not);
#else
  why_not = "the stage-1 driver was built without the CUDA toolkit";
  return false;
#endif
}

// The host's measured model (auto or measured, plans for the host): the host timer (library calls
// directly, eOperators with the toolchain where one is given, each under its record in the tuning
// database where one is given: tuning runs after the search, so the search prices the records of
// the generations before it), and the roofline of this machine's profile (kept in the machine
// profile file where one is given, else the profile given) to explore with and to price what is
// not measured.
inline void choose_host_measured(cost_choice& c, const search_request& q) {
  if (!q.toolchain_path.empty()) c.toolchain = measure::read_host_toolchain(q.toolchain_path);
  measure::host_timer_options options;
  if (c.toolchain && !q.tuning_database_path.empty()) {
    c.tuning = std::make_unique<tune::tuning_database>(q.tuning_database_path);
    options.tuning = c.tuning.get();
  }
#if defined(EIN_HAVE_ONEDNN)
  if (q.onednn) options.gemm = codegen::library::host_gemm::onednn;  // as the plan's products will run
#endif
  options.batch.work_directory = std::filesystem::path(q.cache_path).parent_path().string();
  if (options.batch.work_directory.empty()) options.batch.work_directory = ".";
  auto timer = std::make_unique<measure::host_timer>(c.toolchain, options);
  c.host = timer.get();
  c.cache = std::make_unique<cost::measurement_cache>(q.cache_path);
  c.cache->expect(timer->device(), timer->setup());
  if (!q.machine_profile_path.empty()) {
    auto fallback = cost::load_profile(q.profile_path);
    auto m = measure::machine_profile(q.machine_profile_path, {timer->device(), timer->setup()}, c.toolchain, fallback,
                                      "ein_generate");
    c.roofline = std::make_unique<cost::roofline>(m.profile);
    c.profile_file = q.machine_profile_path;
  }
  c.timer = std::move(timer);
  c.why = std::string(q.cost == "auto" ? "the host backend's plans run here" : "requested (--cost measured)") +
          (c.toolchain ? "" : ", eOperators priced by the roofline (no host toolchain to compile them)");
}

// auto: the measured model for the build the plan is for where it can time: on this host for host
// plans (choose_host_measured), on a CUDA device for cuda plans where one is present; else the
// roofline model. measured: the same, and for cuda plans without a GPU the cache's only device's
// measurements, every kernel the search prices then required to be in the cache (the plan is the
// one a GPU machine with the same cache chose). roofline: the roofline model of the profile given.
// Both timers time 16-bit kernels as they time float ones (docs/decisions/0028).
inline cost_choice choose_cost(const search_request& q) {
  cost_choice c;
  c.roofline = std::make_unique<cost::roofline>(cost::load_profile(q.profile_path));
  c.profile_file = q.profile_path;
  std::string no_gpu;
  if (q.cost == "roofline") {
    c.why = "requested (--cost roofline)";
    return c;
  }
  const std::string no_cache = "the measured cost model needs a cache file (--cost-cache)";
  if (q.plan_for == codegen::backend::host) {
    if (q.cost == "auto" && q.cache_path.empty()) {
      c.why = "no cost cache (--cost-cache) to keep this host's measurements in";
      return c;
    }
    if (q.cache_path.empty()) throw user_error(no_cache);
    choose_host_measured(c, q);
    return c;
  }
  bool gpu = can_time(no_gpu);
  if (q.cost == "auto" && !gpu) {
    c.why = no_gpu;
    return c;
  }
  if (q.cache_path.empty()) throw user_error(no_cache);
  c.cache = std::make_unique<cost::measurement_cache>(q.cache_path);
#if defined(EIN_HAVE_CUDA_TIMER)
  if (gpu) {
    c.timer = std::make_unique<measure::gpu_timer>(0, measure::gpu_timer_options{.tf32 = c.roofline->profile().use_tf32});
    c.measured = std::make_unique<cost::measured>(*c.cache, c.timer.get(), *c.roofline);
    c.why = q.cost == "auto" ? "a CUDA device is present" : "requested (--cost measured)";
    return c;
  }
#endif
  auto devices = c.cache->devices();
  if (devices.size() != 1) {
    std::string list;
    for (auto& d : devices) list += (list.empty() ? "" : ", ") + d;
    throw user_error("--cost measured: " + no_gpu + ", and cost cache `" + q.cache_path + "` " +
                     (devices.empty() ? std::string("holds no measurements")
                                      : "holds measurements of several devices (" + list + ")") +
                     " to use instead; run the generation on a machine with the GPU to fill it, one "
                     "device per cache file (docs/cost.md)");
  }
  c.measured = std::make_unique<cost::measured>(*c.cache, nullptr, *c.roofline, devices[0]);
  c.cache_only = true;
  c.why = "requested (--cost measured) without a GPU (" + no_gpu + "): the cached measurements of " +
          devices[0] + ", every kernel required in the cache";
  return c;
}

// Whether `target`'s plans call oneDNN for bfloat16 convolutions: where they call oneDNN
// (`onednn`), the driver links it, and oneDNN runs them on this CPU with kernels of its own (the
// host that generates a host plan is the one that runs it).
inline bool onednn_bfloat16_here(codegen::backend target, bool onednn) {
#if defined(EIN_HAVE_ONEDNN)
  return onednn && target == codegen::backend::host && ein::runtime::onednn_runs_bfloat16();
#else
  return false;
#endif
}

// The library calls plans for `target` make with what this driver was built with: a CBLAS where
// found (EIN_HAVE_CBLAS), cuDNN where found (EIN_HAVE_CUDNN); oneDNN where the call asks for it
// (`--onednn on`: ein_generate found it and links it into the plan's consumers), its bfloat16
// convolutions too where onednn_bfloat16_here says so. codegen::capabilities_of says which.
inline ein::plan::capabilities build_capabilities(codegen::backend target, bool onednn) {
#if defined(EIN_HAVE_CBLAS)
  constexpr bool cblas = true;
#else
  constexpr bool cblas = false;
#endif
#if defined(EIN_HAVE_CUDNN)
  constexpr bool cudnn = true;
#else
  constexpr bool cudnn = false;
#endif
  return codegen::capabilities_of(target, cblas, cudnn, onednn, onednn_bfloat16_here(target, onednn));
}

// Searches `p` under the model `--cost` chooses (progress on stderr for searches over a second),
// pricing kernels as plans for `q.plan_for` run them, records the model and why in `o`, prints
// them and the search report, and returns the plan for `o.target`'s build, with the search's
// statistics and whether its float library calls run on TF32 (as the profile priced them). Kernels the measured
// model timed are saved to its cache, even when the search fails.
inline ein::plan::program_plan search_plan(const ir::program& p, const search_request& q, codegen::options& o) {
  const bool sixteen_bit = std::any_of(p.tensors.begin(), p.tensors.end(),
                                       [](const ir::tensor& t) { return ir::is_16bit(t.type); }) ||
                           std::any_of(p.definitions.begin(), p.definitions.end(),
                                       [](const ir::definition& d) { return ir::is_16bit(d.type); });
  auto choice = choose_cost(q);
  const auto caps = build_capabilities(q.plan_for, q.onednn);
  std::printf("cost model: %s: %s\n",
              choice.host ? ("measured on " + choice.host->device() + ", exploring with roofline " +
                             choice.roofline->profile().name + " (" + file_name(choice.profile_file) + ")").c_str()
                          : choice.model().describe().c_str(),
              choice.why.c_str());
  if (sixteen_bit && q.plan_for == codegen::backend::host && q.onednn)
    std::printf("oneDNN bfloat16 convolutions: %s\n",
                onednn_bfloat16_here(q.plan_for, q.onednn)
                    ? "yes (oneDNN runs them with kernels of its own on this CPU)"
                    : "no (oneDNN has no bfloat16 kernels for this CPU: they take the float route)");
  std::fflush(stdout);
  auto progress = [&](const search::statistics& s) {
    std::fprintf(stderr, "ein_generate(%s): searching %zu of %zu distinct subprograms, %llu states, depth %d, %.1f s\n",
                 o.object.c_str(), s.search, s.searches, static_cast<unsigned long long>(s.states), s.depth, s.seconds);
  };
  // Kernels the search timed are kept for the next generation, also when the search fails.
  auto save = [&] {
    if (choice.cache && (choice.host || (choice.measured && choice.measured->counts().timed > 0))) choice.cache->save();
  };
  search::optimized_program r;
  host_measured_model measured_here;
  try {
    search::options opts;
    opts.program = q.relax;
    if (choice.host) {
      const host_measurement m{*choice.roofline, *choice.cache,   *choice.host, choice.toolchain,
                               q.measuring,      q.accumulate,    "ein_generate(" + o.object + ")"};
      r = search_host_measured(p, caps, opts, progress, m, measured_here);
      choice.measured = std::move(measured_here.model);
    } else
      r = search::optimize_program(p, derive::intra_rules(), choice.model(), opts, progress, caps);
  } catch (...) {
    save();
    throw;
  }
  save();
  if (r.seconds >= 1)
    std::fprintf(stderr, "ein_generate(%s): search done in %.1f s: %s\n", o.object.c_str(), r.seconds,
                 r.summary().c_str());
  if (choice.cache_only && choice.measured->counts().fallback > 0)
    throw user_error("--cost measured without a GPU: " + std::to_string(choice.measured->counts().fallback) +
                     " kernels the search priced are not in cost cache `" + q.cache_path + "` for " +
                     choice.measured->device() + "; run the generation where that GPU is present to "
                     "complete the cache (docs/cost.md)");
  r.model = choice.model().describe() + ": " + choice.why;
  if (choice.host) {
    auto n = choice.measured->counts();
    r.model = "measured on " + choice.host->device() + " (cache " + q.cache_path + ": " + std::to_string(n.cached) +
              " cached, " + std::to_string(n.timed) + " timed, " + std::to_string(n.fallback) +
              " priced by the roofline): " + choice.why + "; explored with " + choice.roofline->describe() + "; " +
              measured_here.stats.str();
    if (measured_here.whole) r.model += "; " + measured_here.whole->str();
  }
  // The header names the model without its counts or the reason for it, so that the same choice
  // writes the same header (a second generation finds in the cache what the first timed).
  std::string model_name = choice.measured ? "measured " + choice.measured->device() + " (" + file_name(q.cache_path) + ")"
                                           : "roofline " + choice.roofline->profile().name + " (" +
                                                 file_name(choice.profile_file) + ")";
  if (choice.host)
    model_name += ", explored by roofline " + choice.roofline->profile().name + " (" + file_name(choice.profile_file) + ")";
  o.search = "optimize_program, " + model_name + "; " + r.summary();
  if (q.plan_for != o.target) o.search += std::string("; planned for the ") + codegen::name(q.plan_for) + " backend";
  std::printf("%s", r.report().c_str());
  const auto target_caps = build_capabilities(o.target, q.onednn);
  const bool written_kept = measured_here.whole && measured_here.whole->written_kept;
  // the header says so without the times, so that a rebuild writes the same header
  if (written_kept) o.search += "; the plan as written kept: the searched plan did not run faster whole here";
  // The calls bind the instances the search priced (for `q.plan_for`; a target build that does
  // not run one binds what its libraries run).
  // (the search verified `p` as it entered)
  auto chosen = written_kept ? ein::plan::make_verified_plan(p, target_caps) : search::make_plan(r, target_caps);
  chosen.statistics = ein::plan::search_summary{r.states(), r.pruned(), r.depth(), r.seconds, search::name(r.reason()),
                                                r.model, r.report(), r.cut()};
  // Library calls run as the profile priced them: on TF32 tensor cores where it says so.
  chosen.tf32 = choice.roofline->profile().use_tf32;
  return chosen;
}

}  // namespace detail

namespace detail {

/// A flag of the search program: its name and the values it takes (any where none are listed).
struct driver_flag {
  std::string_view name;
  std::vector<std::string_view> values;
  bool accepts(std::string_view v) const {
    return values.empty() || std::find(values.begin(), values.end(), v) != values.end();
  }
};

/// Every flag driver_main reads (the argument fuzzer mutates command lines over the same list).
inline const std::vector<driver_flag>& driver_flags() {
  static const std::vector<driver_flag> flags = {
      {"--model", {}},      {"--name", {}},         {"--header", {}},
      {"--report", {}},     {"--source", {}},       {"--profile", {}},
      {"--cost-cache", {}}, {"--cost", {"auto", "measured", "roofline"}},
      {"--search", {"on", "off"}},                  {"--backend", {"host", "cuda"}},
      {"--plan-for", {"host", "cuda"}},             {"--accumulate", {"element", "double"}},
      {"--onednn", {"on", "off"}},                  {"--alpha", {}},
      {"--program-states", {}},                     {"--host-toolchain", {}},
      {"--machine-profile", {}},                    {"--measure-budget", {}},
      {"--finalists", {}},                          {"--gradient", {}},
      {"--keep", {"cost", "store", "recompute"}},   {"--memory-budget", {}},
      {"--tune", {"on", "off"}},                    {"--tuning-db", {}},
      {"--tuning-budget", {}},                      {"--tuning-reuse", {"on", "off"}},
  };
  return flags;
}

inline const driver_flag* find_flag(std::string_view name) {
  for (auto& f : driver_flags())
    if (f.name == name) return &f;
  return nullptr;
}

/// `text` read whole as a number of type T within [lo, hi]; nothing where it is not one.
template <class T>
std::optional<T> number_in(const std::string& text, T lo, T hi) {
  T v{};
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !(v >= lo && v <= hi)) return std::nullopt;
  return v;
}

/// The program-level search's options from `--alpha` (a number from 1 to 2, default 1.05) and
/// `--program-states` (a whole number from 0 to 1000000, default 4), or a message naming the
/// flag that is wrong.
inline std::string program_search_of(const std::string& alpha, const std::string& states, search::program_search& out) {
  if (!alpha.empty()) {
    auto a = number_in(alpha, 1.0, 2.0);
    if (!a) return "--alpha `" + alpha + "` must be a number from 1 to 2 (the program search keeps plans priced up to alpha times the best)";
    out.alpha = *a;
  }
  if (!states.empty()) {
    auto n = number_in<std::uint64_t>(states, 0, 1'000'000);
    if (!n) return "--program-states `" + states + "` must be a whole number from 0 to 1000000 (programs the program search expands)";
    out.max_expanded = *n;
  }
  return {};
}

/// How much a measured host search measures, from `--measure-budget` (seconds of timing and
/// compiling, a number from 0 to 86400, default 600) and `--finalists` (candidates kept to time
/// per subprogram, a whole number from 1 to 100, default 6), or a message naming the flag that is
/// wrong.
inline std::string host_measuring_of(const std::string& budget, const std::string& finalists, host_measuring& out) {
  if (!budget.empty()) {
    auto b = number_in(budget, 0.0, 86400.0);
    if (!b) return "--measure-budget `" + budget + "` must be a number of seconds from 0 to 86400";
    out.budget_seconds = *b;
  }
  if (!finalists.empty()) {
    auto n = number_in<std::size_t>(finalists, 1, 100);
    if (!n) return "--finalists `" + finalists + "` must be a whole number from 1 to 100 (candidates timed per subprogram)";
    out.finalists = *n;
  }
  return {};
}

}  // namespace detail

/// The search program, `ein_search`: reads the model file `--model` (model_file.hpp), finds its
/// plan under the cost model choose_cost picks (the program as written with `--search off`; the
/// plan of its gradient with `--gradient`, generator/gradient.hpp), writes the header `--header`,
/// the report `--report` and, for the cuda backend, the CUDA source `--source`, and prints the
/// cost model, why it was chosen, and the plan. Every flag, its default and the ein_generate
/// argument it comes from: docs/ein_generate.md. What the build offers is compiled in:
/// EIN_HAVE_CBLAS (compute-bound products become CBLAS calls on the host), EIN_HAVE_CUDNN
/// (convolutions become cuDNN calls on cuda), EIN_HAVE_ONEDNN (the host timer times oneDNN) and
/// EIN_HAVE_CUDA_TIMER (the measured model times on a GPU). With `--tune on`, each eOperator of a
/// plan runs under the schedule tuning found for it on this machine (host_tuning.hpp; a cuda
/// plan's on its GPU, cuda_tuning.hpp).
/// Returns the process exit status: 0, 1 on a user error (or a failed CUDA call), 2 on bad
/// arguments.
inline int driver_main(int argc, char** argv) {
  std::map<std::string, std::string> given;
  bool bad = argc % 2 == 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    auto* f = detail::find_flag(flag);
    if (!f || !f->accepts(value)) {
      std::fprintf(stderr, "ein_generate search: unexpected argument %s %s\n", flag.c_str(), value.c_str());
      return 2;
    }
    if (!given.emplace(flag, value).second) {  // the later value would silently win
      std::fprintf(stderr, "ein_generate search: %s given twice\n", flag.c_str());
      return 2;
    }
  }
  auto arg = [&](const char* flag, std::string otherwise = {}) {
    auto it = given.find(flag);
    return it == given.end() ? otherwise : it->second;
  };
  codegen::options o;
  o.name = arg("--name");
  o.target = arg("--backend", "host") == "host" ? codegen::backend::host : codegen::backend::cuda;
  std::string model = arg("--model"), header = arg("--header"), report_path = arg("--report"), source = arg("--source"),
              profile = arg("--profile"), cost = arg("--cost", "auto"), cost_cache = arg("--cost-cache");
  bool search = arg("--search", "on") == "on", onednn = arg("--onednn", "off") == "on";
  std::optional<codegen::backend> plan_for;
  if (given.count("--plan-for")) plan_for = arg("--plan-for") == "host" ? codegen::backend::host : codegen::backend::cuda;
  if (bad || model.empty() || o.name.empty() || header.empty() || report_path.empty() ||
      (o.target == codegen::backend::cuda) == source.empty() || (search && profile.empty())) {
    std::fprintf(stderr, "usage: %s --model M --name N --backend host|cuda --header H --report R [--source S]\n"
                 "       [--search on|off] [--profile P] [--cost auto|measured|roofline] [--cost-cache C]\n"
                 "       [--plan-for host|cuda] [--accumulate element|double] [--onednn on|off]\n"
                 "       [--alpha A] [--program-states N] [--host-toolchain T] [--machine-profile M]\n"
                 "       [--measure-budget S] [--finalists K] [--gradient a,b,...]\n"
                 "       [--keep cost|store|recompute] [--memory-budget B]\n"
                 "       [--tune on|off] [--tuning-db D] [--tuning-budget U] [--tuning-reuse on|off]\n"
                 "(--source with the cuda codegen::backend only, --profile with --search on; what each flag\n"
                 "means and its default: docs/ein_generate.md)\n", argv[0]);
    return 2;
  }
  detail::search_request q;
  q.cost = cost;
  q.profile_path = profile;
  q.cache_path = cost_cache;
  q.toolchain_path = arg("--host-toolchain");
  q.machine_profile_path = arg("--machine-profile");
  q.plan_for = plan_for.value_or(o.target);
  q.onednn = onednn;
  q.accumulate = arg("--accumulate", "element") == "element" ? codegen::accumulation::element : codegen::accumulation::f64;
  for (auto wrong : {detail::program_search_of(arg("--alpha"), arg("--program-states"), q.relax),
                     detail::host_measuring_of(arg("--measure-budget"), arg("--finalists"), q.measuring)})
    if (!wrong.empty()) {
      std::fprintf(stderr, "ein_generate search: %s\n", wrong.c_str());
      return 2;
    }
  std::vector<std::string> gradient;
  keeping_request keep;
  if (given.count("--gradient"))
    if (auto wrong = gradient_tensors_of(arg("--gradient"), gradient); !wrong.empty()) {
      std::fprintf(stderr, "ein_generate search: %s\n", wrong.c_str());
      return 2;
    }
  if (auto wrong = keeping_of(arg("--keep", "cost"), arg("--memory-budget"), keep); !wrong.empty()) {
    std::fprintf(stderr, "ein_generate search: %s\n", wrong.c_str());
    return 2;
  }
  if ((given.count("--keep") || given.count("--memory-budget")) && gradient.empty()) {
    std::fprintf(stderr, "ein_generate search: --keep and --memory-budget choose what a gradient plan keeps of its "
                 "forward; they need --gradient\n");
    return 2;
  }
  const bool tune = arg("--tune", "off") == "on";
  detail::tuning_request tuning;
  tuning.database_path = arg("--tuning-db");
  tuning.toolchain_path = arg("--host-toolchain");
  tuning.reuse = arg("--tuning-reuse", "on") == "on";
  if (given.count("--tuning-budget")) {
    auto seconds = detail::number_in<double>(arg("--tuning-budget"), 0, 86400);
    if (!seconds) {
      std::fprintf(stderr, "ein_generate search: --tuning-budget must be a number of seconds from 0 to 86400, not %s\n",
                   arg("--tuning-budget").c_str());
      return 2;
    }
    tuning.budget_seconds = *seconds;
  }
  if ((given.count("--tuning-db") || given.count("--tuning-budget") || given.count("--tuning-reuse")) && !tune) {
    std::fprintf(stderr, "ein_generate search: --tuning-db, --tuning-budget and --tuning-reuse are for --tune on\n");
    return 2;
  }
  if (tune && (tuning.database_path.empty() || (o.target == codegen::backend::host && tuning.toolchain_path.empty()))) {
    std::fprintf(stderr, "ein_generate search: --tune on needs --tuning-db, and for --backend host --host-toolchain\n");
    return 2;
  }
  if (tune) q.tuning_database_path = tuning.database_path;
  if (!is_identifier(o.name)) {
    std::fprintf(stderr, "ein_generate search: --name `%s` must be a C++ identifier (it names the plan's namespace)\n",
                 o.name.c_str());
    return 2;
  }
  try {
    model_file m = read_model_file(model);
    // An imported program's object is the one its generated header defines.
    o.object = m.onnx.empty() ? m.object : "ein_generated::" + o.name + "::net";
    o.model_header = m.model;
    o.onnx = m.onnx;
    o.key = m.key;
    ir::program p = std::move(m.program);
    p.name = o.name;
    std::optional<cost::roofline> pricing;
    if (!gradient.empty()) {
      if (search) {
        pricing.emplace(cost::load_profile(q.profile_path));
        keep.model = &*pricing;
      }
      keep.build = detail::build_capabilities(search ? q.plan_for : o.target, onednn);
      p = gradient_of(p, gradient, keep, o);
    }
    // the model file's program verified as it was read (ir::from_json); a gradient is checked
    // where its plan is made
    const auto written_caps = detail::build_capabilities(o.target, onednn);
    auto chosen = search              ? detail::search_plan(p, q, o)
                  : gradient.empty() ? ein::plan::make_verified_plan(p, written_caps)
                                     : ein::plan::make_plan(p, written_caps);
    chosen.accumulate = q.accumulate;
    const codegen::emission e = codegen::make_emission(std::move(chosen), o);
    if (tune && o.target == codegen::backend::host) {
      o.tuning = detail::tune_host_plan(e, tuning);
      o.host_schedules = detail::schedules_of(o.tuning);
    }
    if (tune && o.target == codegen::backend::cuda)
      o.cuda_schedules = detail::tune_cuda_plan(e, tuning.database_path, tuning.budget_seconds, tuning.reuse);
    detail::write_file(header, codegen::emit_header(e, o));
    if (o.target == codegen::backend::cuda) detail::write_file(source, codegen::emit_cuda_source(e, o));
    detail::write_file(report_path, codegen::report(e, o).dump(2) + "\n");
    std::printf("%s", e.description.c_str());
    return 0;
  } catch (const user_error& e) {
    std::fprintf(stderr, "ein_generate(%s): %s\n", (o.object.empty() ? model : o.object).c_str(), e.what());
    return 1;
  } catch (const std::runtime_error& e) {  // a failed CUDA, cuBLAS or cuDNN call of the GPU timer
    std::fprintf(stderr, "ein_generate(%s): %s\n", (o.object.empty() ? model : o.object).c_str(), e.what());
    return 1;
  }
}

}  // namespace ein::generator
