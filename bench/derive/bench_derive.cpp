// Derivation speed on the CPU: candidates generated per second and fingerprints per second on
// the paper's Conv3x3 and G2BMM expressions.
//
//   bench_derive [--runs N] [--min-seconds S] [--out FILE]
//
// Per expression: level 1 applies every intra-expression rule to the expression; level 2
// applies every rule to every level-1 candidate (what one step of a breadth-first search does).
// Fingerprints are taken of the level-1 and level-2 candidates. Each figure is the median over
// `runs` runs of at least `min-seconds` each. Prints a table and writes JSON (default
// bench/results/derive.json in the source tree) naming the machine and the command.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "ein/derive/all.hpp"
#include "ein/ir/fingerprint.hpp"

namespace {

using namespace ein;
using namespace ein::ir;

// Conv3x3, NHWC [1,7,7,512], 512 filters, padding 1.
scope_ptr conv3x3() {
  tensor A{"A", dtype::f32, {1, 7, 7, 512}, tensor_role::input};
  tensor K{"K", dtype::f32, {3, 3, 512, 512}, tensor_role::weight};
  return make_scope({{"n", 0, 1}, {"h", 0, 7}, {"w", 0, 7}, {"f", 0, 512}},
                    {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 512}},
                    make_access(A, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                        make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

// G2BMM, [8,10000,64], band width W = 1000, dilation D = 4:
// C[b,i,w] = Σ_k A[b,i,k] · B[b, i + D·(w − W), k], w ∈ [0, 2W + 1).
scope_ptr g2bmm() {
  constexpr std::int64_t W = 1000, D = 4;
  tensor A{"A", dtype::f32, {8, 10000, 64}, tensor_role::input};
  tensor B{"B", dtype::f32, {8, 10000, 64}, tensor_role::input};
  return make_scope({{"b", 0, 8}, {"i", 0, 10000}, {"w", 0, 2 * W + 1}}, {{"k", 0, 64}},
                    make_access(A, {idx("b"), idx("i"), idx("k")}) *
                        make_access(B, {idx("b"), idx("i") + idx("w") * D - D * W, idx("k")}));
}

std::vector<scope_ptr> expand(const std::vector<scope_ptr>& from) {
  std::vector<scope_ptr> out;
  for (auto& s : from)
    for (auto& r : derive::intra_rules())
      for (auto& c : r.apply(s)) out.push_back(c.result);
  return out;
}

// Median rate (items per second) of `body`, which returns how many items it produced.
double rate(const std::function<std::size_t()>& body, int runs, double min_seconds) {
  std::vector<double> rates;
  for (int r = 0; r < runs; ++r) {
    std::size_t items = 0;
    auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      items += body();
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < min_seconds);
    rates.push_back(static_cast<double>(items) / elapsed);
  }
  return bench::median(rates);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  double min_seconds = 0.2;
  std::string out = std::string(EIN_SOURCE_DIR) + "/bench/results/derive.json";
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--min-seconds") min_seconds = std::atof(argv[i + 1]);
    else if (a == "--out") out = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--runs N] [--min-seconds S] [--out FILE]\n", argv[0]);
      return 2;
    }
  }

  auto load = bench::load_average();
  auto started = bench::utc_now();
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-8s %6s %10s %16s %16s %14s\n", "expr", "level", "candidates", "candidates/s",
              "fingerprints/s", "us/candidate");
  for (auto& [name, make] : {std::pair{"conv3x3", &conv3x3}, std::pair{"g2bmm", &g2bmm}}) {
    std::vector<scope_ptr> level0{make()};
    auto level1 = expand(level0);
    auto level2 = expand(level1);
    for (int level : {1, 2}) {
      auto& from = level == 1 ? level0 : level1;
      auto& produced = level == 1 ? level1 : level2;
      double candidates = rate([&] { return expand(from).size(); }, runs, min_seconds);
      std::uint64_t sink = 0;
      double fingerprints = rate(
          [&] {
            for (auto& s : produced) sink ^= fingerprint(*s);
            return produced.size();
          },
          runs, min_seconds);
      if (sink == 42) std::printf(" ");  // keeps the fingerprints from being optimized away
      std::printf("%-8s %6d %10zu %16.0f %16.0f %14.2f\n", name, level, produced.size(), candidates,
                  fingerprints, 1e6 / candidates);
      rows.push_back({{"expression", name},
                      {"level", level},
                      {"candidates", produced.size()},
                      {"candidates_per_second", candidates},
                      {"fingerprints_per_second", fingerprints}});
    }
  }

  nlohmann::json report{{"benchmark", "derive"},
                        {"command", command},
                        {"runs", runs},
                        {"min_seconds_per_run", min_seconds},
                        {"statistic", "median"},
                        {"build_type", EIN_BUILD_TYPE},
                        {"started", started},
                        {"machine", {{"nproc", bench::processors()}, {"cpu", bench::cpu_model()}, {"load_average_1min", load}}},
                        {"rules", nlohmann::json::array()},
                        {"results", rows}};
  for (auto& r : derive::intra_rules()) report["rules"].push_back(r.name);
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::ofstream(out) << report.dump(2) << "\n";
  std::printf("machine: nproc %d, %s, load average %s at start\nwrote %s\n", bench::processors(),
              bench::cpu_model().c_str(), load.c_str(), out.c_str());
  return 0;
}
