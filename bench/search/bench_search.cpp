// Search speed (EinNet §6, Figures 18–19): states and seconds per explorative depth with and
// without fingerprint pruning, the full search (explore + converge) at a total depth, the depth
// at which each paper transformation is found, the chosen plan's predicted speedup under the H100
// roofline profile, and the search without converging derivation.
//
//   bench_search [--runs N] [--max-depth D] [--states S] [--seconds T] [--depth D7]
//                [--explore E,...] [--search-seconds T] [--instantiate-states S]
//                [--cases NAME,...] [--parts explore,unpruned,search,without_converge]
//                [--threads N] [--smoke] [--out FILE]
//
// --max-depth (9), --states (1,000,000) and --seconds (60) bound each explorative curve, pruned
// and unpruned; a curve cut by them says so. --depth (7) is the total search depth, split as
// explore E + converge (depth − E) for each E of --explore (2,3), each search stopped after
// --search-seconds (120) of wall clock. --runs (3) repeats every timed part whose first run took
// under 10 s, and the report gives medians (wall and processor seconds). Without converging
// derivation every explorative state is instantiated, at most --instantiate-states (20,000) of
// them. --parts picks what runs (default all). --threads (1) is the searches' threads
// (search::options::threads: the explorative stage's, and the program case's; 0: all the
// machine's); the states and plans do not depend on it, only the seconds. --smoke runs Conv3x3
// to depth 2 in well under a second (the ctest smoke test). Prints a table and writes JSON
// (default bench/results/search.json in the source tree) after every case, naming the machine
// and the command.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cases.hpp"
#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "ein/derive/all.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace {

using namespace ein;
using nlohmann::json;

struct settings {
  int runs = 3;
  int max_depth = 9;
  std::uint64_t states = 1'000'000;
  double seconds = 60;
  double search_seconds = 120;
  int depth = 7;
  std::vector<int> explore = {2, 3};
  std::uint64_t instantiate_states = 20'000;
  std::vector<std::string> only;
  std::vector<std::string> parts = {"explore", "unpruned", "search", "without_converge"};
  unsigned threads = 1;
  bool smoke = false;

  bool part(const std::string& p) const { return std::find(parts.begin(), parts.end(), p) != parts.end(); }
};

// Processor seconds this process has used: on a shared machine, less noisy than wall time.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Runs `body` (which returns its wall seconds) once, and again up to `runs` times in all while
// its first run took under 10 s; `cpu` receives each run's processor seconds.
template <class F>
std::vector<double> repeat(int runs, std::vector<double>& cpu, F&& body) {
  std::vector<double> t;
  do {
    double before = cpu_seconds();
    t.push_back(body());
    cpu.push_back(cpu_seconds() - before);
  } while (t[0] < 10 && static_cast<int>(t.size()) < runs);
  return t;
}

// The explorative curve: states per depth and seconds until each depth was complete.
json explore_curve(const ir::scope_ptr& source, const settings& s, bool prune) {
  search::budget b{s.max_depth, s.states,
                   std::chrono::milliseconds(static_cast<std::int64_t>(s.seconds * 1000))};
  std::vector<search::statistics> runs;
  std::vector<double> cpu;
  repeat(s.runs, cpu, [&] {
    runs.push_back(search::explore(source, derive::intra_rules(), b, prune, {}, s.threads).stats);
    return runs.back().seconds;
  });
  std::vector<double> rates;
  for (auto& r : runs) rates.push_back(static_cast<double>(r.states) / r.seconds);
  auto& first = runs.front();
  json depths = json::array();
  std::uint64_t total = 0;
  for (std::size_t d = 0; d < first.states_per_depth.size(); ++d) {
    total += first.states_per_depth[d];
    json row{{"depth", d}, {"new_states", first.states_per_depth[d]}, {"states", total}};
    if (prune) {  // candidates of this depth already met: the pruning ratio at this depth
      auto pruned = d < first.pruned_per_depth.size() ? first.pruned_per_depth[d] : 0;
      row["pruned"] = pruned;
      if (d > 0) row["pruned_share"] = static_cast<double>(pruned) / static_cast<double>(pruned + first.states_per_depth[d]);
    }
    if (d < first.seconds_to_depth.size()) {
      std::vector<double> t;
      for (auto& r : runs) t.push_back(r.seconds_to_depth[d]);
      row["seconds"] = bench::median(t);
      row["complete"] = true;
    } else {
      row["complete"] = false;  // the budget stopped the search inside this level
    }
    depths.push_back(row);
  }
  std::vector<double> t;
  for (auto& r : runs) t.push_back(r.seconds);
  return {{"prune", prune},
          {"budget", {{"max_depth", b.max_depth}, {"max_states", b.max_states}, {"seconds", s.seconds}}},
          {"stop", search::name(first.reason)},
          {"states", first.states},
          {"candidates", first.candidates},
          {"pruned", first.pruned},
          {"seconds", bench::median(t)},
          {"cpu_seconds", bench::median(cpu)},
          {"states_per_second", bench::median(rates)},
          {"threads", s.threads},
          {"runs", runs.size()},
          {"depths", depths}};
}

// Derivation steps of a candidate: explorative and converging steps, up to how the operator
// matched (post-optimization steps come after it and are not derivation depth).
int derivation_depth(const search::candidate_plan& c) {
  for (std::size_t i = 0; i < c.steps.size(); ++i) {
    auto rule = c.steps[i].rule;
    if (rule == "match" || rule == "bridge" || rule == "bridgeable") return static_cast<int>(i);
  }
  return static_cast<int>(c.steps.size());
}

// The steps as printed (derive::to_string).
std::vector<std::string> texts(const std::vector<derive::step>& steps) {
  std::vector<std::string> r;
  for (auto& s : steps) r.push_back(derive::to_string(s));
  return r;
}

json plan_json(const search::candidate_plan& c, bool with_depth) {
  json r{{"shape", c.p.shape()}, {"ms", c.p.seconds * 1e3}, {"target", c.target}, {"steps", texts(c.steps)}};
  if (with_depth) r["depth"] = derivation_depth(c);
  return r;
}

// One full search: time (median), counters, the target's shallowest candidate, the choice.
json full_search(const search_bench::bench_case& bc, const ir::scope_ptr& source, search::options o,
                 const settings& s) {
  std::optional<search::optimized> result;
  std::vector<double> cpu;
  auto times = repeat(s.runs, cpu, [&] {
    result = search::optimize(source, derive::intra_rules(), search_test::h100(), o);
    return result->stats.seconds;
  });
  auto& r = *result;
  const search::candidate_plan* target = nullptr;
  for (auto& c : r.candidates)
    if (bc.is_target(c) && (!target || derivation_depth(c) < derivation_depth(*target))) target = &c;
  auto& chosen = r.candidates[r.chosen];
  json j{{"explore_depth", o.explore_depth},
         {"converge_depth", o.converge ? o.converge_depth : 0},
         {"converge", o.converge},
         {"seconds", bench::median(times)},
         {"seconds_runs", times},
         {"cpu_seconds", bench::median(cpu)},
         {"explore_states", r.stats.explore.states},
         {"explore_pruned", r.stats.explore.pruned},
         {"converge_states", r.stats.converge.states},
         {"converge_pruned", r.stats.converge.pruned},
         {"converge_rejected", r.stats.converge.rejected},
         {"states", r.stats.explore.states + r.stats.converge.states},
         {"candidates", r.candidates.size()},
         {"instantiated", r.stats.instantiated},
         {"stop", search::name(r.stats.reason)},
         {"budget_seconds", std::chrono::duration<double>(o.limits.time).count()},
         {"budget_states", o.limits.max_states},
         {"target_found", target != nullptr},
         {"baseline", plan_json(r.candidates.front(), false)},
         {"chosen", plan_json(chosen, true)},
         {"chosen_is_target", bc.is_target(chosen)},
         {"predicted_speedup", r.baseline.seconds / r.best.seconds}};
  if (target) {
    j["target_depth"] = derivation_depth(*target);
    j["target_plan"] = plan_json(*target, true);
    j["target_speedup"] = r.baseline.seconds / target->p.seconds;
  }
  return j;
}

// Without converging derivation (Figure 18): explorative states instantiated as they are, depth
// by depth until the target appears or the budget runs out.
json without_converge(const search_bench::bench_case& bc, const ir::scope_ptr& source, const settings& s) {
  json levels = json::array();
  auto start = std::chrono::steady_clock::now();
  for (int d = 1; d <= s.depth; ++d) {
    double left = s.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) break;
    search::options o;
    o.explore_depth = d;
    o.limits.max_depth = d;
    o.converge = false;
    o.threads = s.threads;
    // optimize instantiates every explorative state here, those kept when the state budget
    // cut the level included, until the time left runs out
    o.limits.max_states = s.instantiate_states;
    o.limits.time = std::chrono::milliseconds(static_cast<std::int64_t>(left * 1000));
    auto r = search::optimize(source, derive::intra_rules(), search_test::h100(), o);
    bool found = std::any_of(r.candidates.begin(), r.candidates.end(), bc.is_target);
    levels.push_back({{"explore_depth", d},
                      {"seconds", r.stats.seconds},
                      {"states", r.stats.explore.states},
                      {"instantiated", r.stats.instantiated},
                      {"stop", search::name(r.stats.reason)},
                      {"target_found", found},
                      {"chosen", r.best.shape()},
                      {"predicted_speedup", r.baseline.seconds / r.best.seconds}});
    if (found || r.stats.reason == search::stop_reason::time || r.stats.reason == search::stop_reason::states) break;
  }
  json j{{"levels", levels}, {"budget_seconds", s.seconds}, {"budget_states", s.instantiate_states}};
  auto& last = levels.back();
  j["target_found"] = last["target_found"];
  if (last["target_found"]) j["target_depth"] = last["explore_depth"];
  return j;
}

// The program-level case: optimize_program on the two convolutions sharing their input, as
// ein_generate runs it (every library kernel called). The target, EinNet Figure 3(a): one
// definition reads the shared input, the contraction the two merged into.
json program_case(const settings& s) {
  auto p = search_bench::conv3x3_conv1x1();
  auto& model = search_test::h100();
  auto start = std::chrono::steady_clock::now();
  search::options o;
  o.threads = s.threads;
  auto r = search::optimize_program(p, derive::intra_rules(), model, o);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t readers = 0;
  for (auto& d : r.program.definitions) {
    auto read = ir::tensor_names_read(d.value->body, ir::depth::top_level);
    readers += std::find(read.begin(), read.end(), "A") != read.end();
  }
  return {{"name", "Conv3x3+Conv1x1"},
          {"configuration", "NHWC [1,7,7,512], 512 filters each, one shared input"},
          {"target", "one contraction reads the shared input (the two merged, Figure 3(a))"},
          {"target_found", readers == 1},
          {"seconds", seconds},
          {"states", r.states()},
          {"post_steps", texts(r.post_steps)},
          {"predicted_speedup", search::program_seconds(p, model) / search::program_seconds(r.program, model)}};
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> r;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

// A number given on the command line, or a message naming the option and exit status 2: a typo
// must not run a benchmark on a default.
template <class T>
T number(const char* option, const std::string& text) {
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < T{}) {
    std::fprintf(stderr, "bench_search: %s wants a non-negative number, not '%s'\n", option, text.c_str());
    std::exit(2);
  }
  return value;
}

void print_case(const json& c) {
  std::printf("\n%s (%s)\n", c["name"].get<std::string>().c_str(), c["configuration"].get<std::string>().c_str());
  for (auto* key : {"explore_pruned", "explore_unpruned"}) {
    if (!c.contains(key)) continue;
    auto& e = c[key];
    std::printf("  %-17s stop %-9s", key, e["stop"].get<std::string>().c_str());
    for (auto& d : e["depths"])
      std::printf(" d%d:%llu%s", d["depth"].get<int>(), d["states"].get<unsigned long long>(),
                  d["complete"].get<bool>() ? "" : "*");
    std::printf("  (%.3f s, %.3f cpu s, %.0f states/s on %u threads)\n", e["seconds"].get<double>(),
                e["cpu_seconds"].get<double>(), e["states_per_second"].get<double>(), e["threads"].get<unsigned>());
  }
  for (auto& r : c["search"])
    std::printf("  search %d+%d: %.3f s, %llu states, target %s%s, chosen %s (depth %d), speedup %.2fx, stop %s\n",
                r["explore_depth"].get<int>(), r["converge_depth"].get<int>(), r["seconds"].get<double>(),
                r["states"].get<unsigned long long>(), r["target_found"].get<bool>() ? "found at depth " : "not found",
                r.contains("target_depth") ? std::to_string(r["target_depth"].get<int>()).c_str() : "",
                r["chosen"]["shape"].get<std::string>().c_str(), r["chosen"]["depth"].get<int>(),
                r["predicted_speedup"].get<double>(), r["stop"].get<std::string>().c_str());
  if (!c.contains("without_converge")) return;
  auto& w = c["without_converge"];
  std::printf("  without converge: target %s", w["target_found"].get<bool>() ? "found at depth " : "not found");
  if (w.contains("target_depth")) std::printf("%d", w["target_depth"].get<int>());
  auto& last = w["levels"].back();
  std::printf(" (last level %d: %.3f s, %llu states, stop %s)\n", last["explore_depth"].get<int>(),
              last["seconds"].get<double>(), last["states"].get<unsigned long long>(),
              last["stop"].get<std::string>().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  std::string out = std::string(EIN_SOURCE_DIR) + "/bench/results/search.json";
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--smoke") {
      s.smoke = true;
    } else if (has_value && a == "--runs") {
      s.runs = std::max(1, number<int>("--runs", argv[++i]));
    } else if (has_value && a == "--max-depth") {
      s.max_depth = number<int>("--max-depth", argv[++i]);
    } else if (has_value && a == "--states") {
      s.states = number<std::uint64_t>("--states", argv[++i]);
    } else if (has_value && a == "--seconds") {
      s.seconds = number<double>("--seconds", argv[++i]);
    } else if (has_value && a == "--search-seconds") {
      s.search_seconds = number<double>("--search-seconds", argv[++i]);
    } else if (has_value && a == "--depth") {
      s.depth = number<int>("--depth", argv[++i]);
    } else if (has_value && a == "--explore") {
      s.explore.clear();
      for (auto& e : split_list(argv[++i])) s.explore.push_back(number<int>("--explore", e));
    } else if (has_value && a == "--instantiate-states") {
      s.instantiate_states = number<std::uint64_t>("--instantiate-states", argv[++i]);
    } else if (has_value && a == "--parts") {
      s.parts = split_list(argv[++i]);
    } else if (has_value && a == "--cases") {
      s.only = split_list(argv[++i]);
    } else if (has_value && a == "--threads") {
      s.threads = number<unsigned>("--threads", argv[++i]);
      if (s.threads == 0) s.threads = search::search_threads();
    } else if (has_value && a == "--out") {
      out = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--max-depth D] [--states S] [--seconds T] [--depth D] "
                   "[--search-seconds T] "
                   "[--explore E,...] [--instantiate-states S] [--cases NAME,...] [--parts P,...] "
                   "[--threads N] [--smoke] [--out FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  if (s.smoke) {
    s.runs = 1, s.max_depth = 2, s.states = 20'000, s.seconds = 5, s.search_seconds = 5, s.depth = 2;
    s.explore = {1};
    s.only = {"Conv3x3"};
  }

  auto load = bench::load_average();
  auto started = bench::utc_now();
  // The operator library's Conv3x3 and the rediscovery builder's are the same expression.
  bool same_conv = ir::canonical_string(*search_bench::library_conv<1, 7, 512, 512, 3, 1>()) ==
                   ir::canonical_string(*search_test::conv(7, 512, 512, 3, 1));
  json report{{"benchmark", "search"},
              {"command", command},
              {"runs", s.runs},
              {"threads", s.threads},
              {"statistic", "median"},
              {"build_type", EIN_BUILD_TYPE},
              {"started", started},
              {"complete", false},
              {"machine", {{"nproc", bench::processors()}, {"cpu", bench::cpu_model()}, {"load_average_1min", load}}},
              {"cost_model", search_test::h100().describe()},
              {"artifact_machine", "Xeon E5-2680 v4 (EinNet artifact logs, docs/paper_cases.md)"},
              {"library_conv_matches_builder", same_conv},
              {"rules", json::array()},
              {"cases", json::array()},
              {"program_cases", json::array()}};
  for (auto& r : derive::intra_rules()) report["rules"].push_back(r.name);
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  // written after every case, so that a long run cut short keeps what it measured
  auto write = [&] { std::ofstream(out) << report.dump(2) << "\n"; };

  for (auto& bc : search_bench::cases()) {
    if (!s.only.empty() && std::find(s.only.begin(), s.only.end(), bc.name) == s.only.end()) continue;
    auto source = bc.build();
    json c{{"name", bc.name}, {"configuration", bc.configuration}, {"target", bc.target},
           {"expression", ir::to_string(*source)}};
    c["artifact"] = {{"states_depth7", bc.published.states7},
                     {"seconds_depth7", bc.published.seconds7},
                     {"states_depth7_unpruned", bc.published.states7_unpruned},
                     {"seconds_depth7_unpruned", bc.published.seconds7_unpruned},
                     {"found_depth", bc.published.found_depth},
                     {"steps_without_converge", bc.published.steps_without_converge},
                     {"steps_with_converge", bc.published.steps_with_converge}};
    if (s.part("explore")) c["explore_pruned"] = explore_curve(source, s, true);
    if (s.part("unpruned")) c["explore_unpruned"] = explore_curve(source, s, false);
    c["search"] = json::array();
    for (int e : s.part("search") ? s.explore : std::vector<int>{}) {
      if (e > s.depth) continue;
      search::options o;
      o.explore_depth = e;
      o.converge_depth = s.depth - e;
      o.limits.max_depth = s.depth;
      o.limits.max_states = s.states;
      o.limits.time = std::chrono::milliseconds(static_cast<std::int64_t>(s.search_seconds * 1000));
      o.threads = s.threads;
      c["search"].push_back(full_search(bc, source, o, s));
    }
    if (s.part("without_converge")) c["without_converge"] = without_converge(bc, source, s);
    print_case(c);
    std::fflush(stdout);
    report["cases"].push_back(std::move(c));
    write();
  }
  if (!s.smoke && s.only.empty()) {
    auto program = program_case(s);
    std::printf("\n%s: %s in %.3f s (%llu states), predicted speedup %.2fx\n",
                program["name"].get<std::string>().c_str(), program["target_found"] ? "merged" : "not merged",
                program["seconds"].get<double>(), static_cast<unsigned long long>(program["states"].get<std::uint64_t>()),
                program["predicted_speedup"].get<double>());
    report["program_cases"].push_back(std::move(program));
  }
  report["complete"] = true;
  write();
  std::printf("machine: nproc %d, %s, load average %s at start\nwrote %s\n", bench::processors(),
              bench::cpu_model().c_str(), load.c_str(), out.c_str());
  return same_conv ? 0 : 1;
}
