// The gradient fuzzer: random programs of the generator differentiated with respect to every
// differentiable tensor, each gradient checked against central finite differences in double.
//
//   fuzz_gradients [--seed N] [--programs N] [--seconds S]
//
// Program k is generate_program(seed + k) (in half the programs a fifth of the scopes and binary
// nodes are max or min); its targets are every input and weight and, in one program in three,
// every definition that is no output and that an output depends on. Its gradient program
// (grad::gradient) must verify, and grad::check_gradient, on inputs and seeds drawn from the
// program's seed, must hold along every direction compared (directions across a kink within the
// step are left out and counted). The run ends with
// `fuzz_gradients: <programs> programs, <directions> directions compared, <kinks> left out at a
// kink, <accumulating> programs with an accumulating form, <failed> failed`; on a failure it
// first prints the seed, the smallest failing program (generated again from the same seed with
// smaller sizes) and the failure, and exits with status 1.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/generate.hpp"
#include "ein/grad/check.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"

namespace {

using namespace ein;

struct options {
  std::uint64_t seed = 1;
  std::int64_t programs = 1000;
  double seconds = 0;  // 0: no time limit
};

struct outcome {
  std::string failure;  // empty: passed
  grad::check_result check;
  bool accumulating = false;
};

eval::generate_options size_of(std::uint64_t seed, int shrink) {
  eval::generate_options o;
  o.max_extent = std::max(1, 6 - shrink);
  o.max_work = std::max<std::int64_t>(50, 4000 >> shrink);
  o.max_body = std::max(1, 3 - shrink / 2);
  o.max_nesting = std::max(0, 2 - shrink / 2);
  o.max_percent = seed % 2 == 0 ? 20 : 0;
  return o;
}

// The inputs and weights of `p`, and in one program in three its definitions that are no output
// and that an output depends on.
std::vector<std::string> targets_of(const ir::program& p, std::uint64_t seed) {
  std::vector<std::string> out;
  for (auto& t : p.tensors) out.push_back(t.name);
  if (seed % 3 != 0) return out;
  std::set<std::string> needed(p.outputs.begin(), p.outputs.end()), outputs = needed;
  for (auto it = p.definitions.rbegin(); it != p.definitions.rend(); ++it)
    if (needed.count(it->name))
      for (auto& n : ir::tensor_names_read(it->value->body, ir::depth::nested)) needed.insert(n);
  for (auto& d : p.definitions)
    if (needed.count(d.name) && !outputs.count(d.name)) out.push_back(d.name);
  return out;
}

outcome run_one(const ir::program& p, std::uint64_t seed) {
  outcome r;
  try {
    auto targets = targets_of(p, seed);
    auto g = grad::gradient(p, targets);
    ir::verify(g.program);
    r.accumulating = !g.accumulating_forms.empty();
    r.check = grad::check_gradient(p, g, targets, seed);
    r.failure = r.check.failure;
  } catch (const std::exception& e) {
    r.failure = std::string("threw: ") + e.what();
  }
  return r;
}

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    char* end = nullptr;
    if (flag == "--seed") o.seed = std::strtoull(argv[i + 1], &end, 10);
    else if (flag == "--programs") o.programs = std::strtoll(argv[i + 1], &end, 10);
    else if (flag == "--seconds") o.seconds = std::strtod(argv[i + 1], &end);
    else return false;
    if (!end || *end != '\0') return false;
  }
  return argc % 2 == 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: %s [--seed N] [--programs N] [--seconds S]\n", argv[0]);
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::int64_t programs = 0, failed = 0, accumulating = 0;
  std::size_t directions = 0, kinks = 0;
  for (std::int64_t k = 0; k < o.programs; ++k) {
    if (o.seconds > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.seconds) break;
    const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(k);
    auto p = eval::generate_program(seed, size_of(seed, 0));
    auto r = run_one(p, seed);
    ++programs;
    directions += r.check.directions, kinks += r.check.kinks, accumulating += r.accumulating;
    if (r.failure.empty()) continue;
    ++failed;
    // the smallest program of the same seed that still fails
    ir::program smallest = p;
    std::string why = r.failure;
    for (int shrink = 1; shrink <= 6; ++shrink) {
      auto q = eval::generate_program(seed, size_of(seed, shrink));
      auto s = run_one(q, seed);
      if (!s.failure.empty()) smallest = q, why = s.failure;
    }
    std::printf("FAILED: program seed %llu\n%s%s\n", static_cast<unsigned long long>(seed), ir::to_string(smallest).c_str(),
                why.c_str());
    break;
  }
  std::printf("fuzz_gradients: %lld programs, %zu directions compared, %zu left out at a kink, %lld programs with an "
              "accumulating form, %lld failed\n",
              static_cast<long long>(programs), directions, kinks, static_cast<long long>(accumulating),
              static_cast<long long>(failed));
  return failed == 0 ? 0 : 1;
}
