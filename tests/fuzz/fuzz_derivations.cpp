// The derivation fuzzer: random walks of derivation rules over generated expressions, every
// candidate checked against its source with the interpreter.
//
//   fuzz_derivations [--seed N] [--candidates N] [--depth D] [--seconds S]
//
// Each round generates an expression from a seed (default, small or deeply nested sizes; in half
// the rounds a quarter of the scopes are max or min and a quarter of the binary nodes max or
// min), binds fresh random inputs and walks up to `depth` steps: at each step a random rule that
// applies is chosen, EVERY candidate it produces is verified and evaluated against the generated
// expression (relative error 1e-9 in double), and a random candidate becomes the next step's
// source. One round in four walks a generated program instead, with the inter-expression rules
// and the intra-expression rules applied to each definition. The run stops after `candidates`
// checks or `seconds`. It ends with `fuzz: <passed> passed, <failed> failed`; on a failure it
// first prints the seed, the smallest failing expression (shrunk by generating again from the
// same seed with smaller size parameters) and the rule path that produced it, and exits with
// status 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ein/derive/all.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace {

using namespace ein;

constexpr double tolerance = 1e-9;

struct options {
  std::uint64_t seed = 1;
  std::int64_t candidates = 10000;
  int depth = 6;
  double seconds = 0;  // 0: no time limit
};

/// A failing candidate and how it was reached.
struct failure {
  std::uint64_t expression_seed = 0;
  eval::generate_options size;
  std::string family;
  std::string generated;             // the generated expression (or program)
  std::vector<std::string> path;     // each step (derive::to_string), the failing one last
  std::string source, result;        // the failing step's source and candidate
  std::string why;
  std::size_t nodes = 0;             // size of the failing step's source, for shrinking
  std::int64_t work = 0;

  bool smaller_than(const failure& o) const {
    return nodes != o.nodes ? nodes < o.nodes : work < o.work;
  }
};

struct tally {
  std::int64_t passed = 0, failed = 0;
  std::map<std::string, std::int64_t> per_rule;  // candidates checked
  std::optional<failure> smallest;

  std::int64_t checked() const { return passed + failed; }
  void fail(failure f) {
    ++failed;
    if (!smallest || f.smaller_than(*smallest)) smallest = std::move(f);
  }
};

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  eval::random_stream r(a * 0x9e3779b97f4a7c15ULL + b);
  return r.next();
}

// Verifies a scope candidate and compares it with the reference; an empty string means it passed.
std::string check(const ir::scope& candidate, const eval::dense& reference, const eval::bindings& env) {
  try {
    ir::verify(candidate);
    auto value = eval::evaluate(candidate, env);
    if (value.shape != reference.shape || value.lower != reference.lower)
      return "the candidate's box differs from the source's";
    double err = eval::max_rel_error(value, reference);
    if (!(err <= tolerance)) return "relative error " + std::to_string(err);
    return {};
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

std::string check(const ir::program& candidate, const eval::bindings& reference,
                  const eval::bindings& inputs, const std::vector<std::string>& outputs) {
  try {
    ir::verify(candidate);
    if (candidate.outputs != outputs) return "the candidate's outputs differ from the source's";
    auto values = eval::evaluate(candidate, inputs);
    for (auto& o : outputs) {
      auto& ref = reference.at(o);
      auto& got = values.at(o);
      if (got.shape != ref.shape || got.lower != ref.lower) return "output `" + o + "` changed its box";
      double err = eval::max_rel_error(got, ref);
      if (!(err <= tolerance)) return "output `" + o + "`: relative error " + std::to_string(err);
    }
    return {};
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

/// A rule over programs: an inter-expression rule, or an intra-expression rule lifted to
/// every definition.
struct program_step {
  const char* name;
  std::function<std::vector<derive::program_candidate>(const ir::program&)> apply;
};

class fuzzer {
 public:
  fuzzer(std::span<const derive::rule> rules, std::span<const derive::program_rule> program_rules,
         const options& o)
      : rules_(rules), opt_(o) {
    // Program walks mix the inter-expression rules with every intra-expression rule applied to
    // each definition, so that e.g. fusion followed by traversal merging is exercised.
    for (auto& r : program_rules) program_rules_.push_back({r.name, r.apply});
    for (auto& r : rules)
      program_rules_.push_back({r.name, [r](const ir::program& p) {
                                  std::vector<derive::program_candidate> out;
                                  for (std::size_t d = 0; d < p.definitions.size(); ++d)
                                    for (auto& c : r.apply(p.definitions[d].value)) {
                                      auto q = p;
                                      q.definitions[d].value = c.result;
                                      auto how = c.how;
                                      how.parameters.insert(how.parameters.begin(), {"definition", p.definitions[d].name});
                                      out.push_back({std::move(q), std::move(how)});
                                    }
                                  return out;
                                }});
  }

  /// One round: a scope walk, or every few rounds a program walk.
  void round(std::uint64_t expression_seed, const eval::generate_options& size, tally& t,
             std::int64_t budget) {
    if (!program_rules_.empty() && expression_seed % 4 == 3)
      program_walk(expression_seed, size, t, budget);
    else
      scope_walk(expression_seed, size, t, budget);
  }

 private:
  // `steppable` says which candidates the walk may continue from (all are checked).
  template <class Rules, class State, class Apply, class Check, class Steppable, class Describe>
  void walk(std::uint64_t expression_seed, const Rules& rules, State current, Apply apply,
            Check check_one, Steppable steppable, Describe describe, failure base, tally& t,
            std::int64_t budget) {
    eval::random_stream rng(mix(expression_seed, 0x77616c6bULL));
    std::vector<std::string> path;
    std::string source_text = describe(current);
    for (int step = 0; step < opt_.depth && t.checked() < budget; ++step) {
      std::vector<std::size_t> order(rules.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      for (std::size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1))]);
      bool moved = false;
      for (auto r : order) {
        auto& rule = rules[r];
        decltype(apply(rule, current)) candidates;
        try {
          candidates = apply(rule, current);
        } catch (const std::exception& e) {
          auto f = base;
          f.path = path;
          f.path.push_back(std::string(rule.name) + " (while applying)");
          f.source = source_text;
          f.why = std::string("exception: ") + e.what();
          t.fail(std::move(f));
          continue;
        }
        if (candidates.empty()) continue;
        for (auto& c : candidates) {
          ++t.per_rule[std::string(c.how.rule)];
          auto why = check_one(c.result);
          if (why.empty()) {
            ++t.passed;
            continue;
          }
          auto f = base;
          f.path = path;
          f.path.push_back(derive::to_string(c.how));
          f.source = source_text;
          f.result = describe(c.result);
          f.why = why;
          t.fail(std::move(f));
        }
        std::erase_if(candidates, [&](auto& c) { return !steppable(c.result); });
        if (candidates.empty()) break;
        auto& next = candidates[static_cast<std::size_t>(
            rng.integer(0, static_cast<std::int64_t>(candidates.size()) - 1))];
        path.push_back(derive::to_string(next.how));
        current = next.result;
        source_text = describe(current);
        moved = true;
        break;
      }
      if (!moved) break;
    }
  }

  void scope_walk(std::uint64_t expression_seed, const eval::generate_options& size, tally& t,
                  std::int64_t budget) {
    auto g = eval::generate(expression_seed, size);
    auto env = eval::random_inputs(g, mix(expression_seed, 1));
    auto reference = eval::evaluate(*g.scope, env);
    failure base;
    base.expression_seed = expression_seed, base.size = size, base.family = g.family;
    base.generated = ir::to_string(*g.scope);
    base.nodes = eval::node_count(*g.scope);
    base.work = eval::work(*g.scope);
    auto limit = 8 * std::max<std::int64_t>(size.max_work, eval::work(*g.scope));
    walk(
        expression_seed, rules_, g.scope,
        [](const derive::rule& r, const ir::scope_ptr& s) { return r.apply(s); },
        [&](const ir::scope_ptr& s) {
          return s ? check(*s, reference, env) : std::string("the candidate is null");
        },
        // The walk does not step into a candidate whose evaluation would dwarf the budget
        // (repeated boundary relaxing grows boxes without end); it is still checked.
        [&](const ir::scope_ptr& s) { return s && eval::work(*s) <= limit; },
        [](const ir::scope_ptr& s) { return s ? ir::to_string(*s) : std::string("<null>"); }, base, t,
        budget);
  }

  void program_walk(std::uint64_t expression_seed, const eval::generate_options& size, tally& t,
                    std::int64_t budget) {
    auto g = eval::generate_program(expression_seed, size);
    auto inputs = eval::random_inputs(g, mix(expression_seed, 1));
    auto reference = eval::evaluate(g, inputs);
    failure base;
    base.expression_seed = expression_seed, base.size = size, base.family = "program";
    base.generated = ir::to_string(g);
    auto work = [](const ir::program& p) {
      std::int64_t w = 0;
      for (auto& d : p.definitions) w += eval::work(*d.value);
      return w;
    };
    for (auto& d : g.definitions) base.nodes += eval::node_count(*d.value);
    base.work = work(g);
    auto limit = 8 * std::max<std::int64_t>(size.max_work, base.work);
    walk(
        expression_seed, program_rules_, g,
        [](const program_step& r, const ir::program& p) { return r.apply(p); },
        [&](const ir::program& p) { return check(p, reference, inputs, g.outputs); },
        [&](const ir::program& p) { return work(p) <= limit; },
        [](const ir::program& p) { return ir::to_string(p); }, base, t, budget);
  }

  std::span<const derive::rule> rules_;
  std::vector<program_step> program_rules_;
  options opt_;
};

// Size parameters of a round: the defaults, small (dense in edge cases: extents 1 and 2, one
// iterator) or deeply nested.
eval::generate_options size_profile(std::uint64_t expression_seed) {
  eval::generate_options o;
  switch (mix(expression_seed, 0x73697a65ULL) % 3) {
    case 1:
      o.max_rank = 2, o.max_extent = 3, o.max_summation = 2, o.max_nesting = 1;
      break;
    case 2:
      o.max_rank = 3, o.max_extent = 5, o.max_nesting = 3, o.max_body = 4;
      break;
    default:
      break;
  }
  if (mix(expression_seed, 0x6d6178ULL) % 2) o.max_percent = 25;
  return o;
}

// Smaller size parameters to generate a failing seed again with, smallest last.
std::vector<eval::generate_options> shrink_steps(const eval::generate_options& from) {
  std::vector<eval::generate_options> steps;
  for (int extent : {6, 4, 3, 2})
    for (int rank : {3, 2, 1})
      for (int nesting : {1, 0}) {
        auto o = from;
        o.max_extent = std::min(o.max_extent, extent);
        o.max_rank = std::min(o.max_rank, rank);
        o.max_nesting = std::min(o.max_nesting, nesting);
        o.max_body = std::min(o.max_body, rank);
        o.max_summation = std::min(o.max_summation, rank);
        steps.push_back(o);
      }
  return steps;
}

void print_failure(const failure& f, const options& o) {
  std::printf("smallest failure (run seed %llu, expression seed %llu, family %s,\n"
              "  size: max_rank %d, max_extent %d, max_summation %d, max_nesting %d, max_body %d, "
              "max_percent %d)\n",
              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(f.expression_seed),
              f.family.c_str(), f.size.max_rank, f.size.max_extent, f.size.max_summation,
              f.size.max_nesting, f.size.max_body, f.size.max_percent);
  std::printf("  generated: %s\n", f.generated.c_str());
  for (std::size_t i = 0; i < f.path.size(); ++i)
    std::printf("  step %zu: %s\n", i + 1, f.path[i].c_str());
  std::printf("  source:    %s\n  candidate: %s\n  why:       %s\n", f.source.c_str(),
              f.result.c_str(), f.why.c_str());
  std::printf("  rerun:     fuzz_derivations --seed %llu --candidates %lld --depth %d\n",
              static_cast<unsigned long long>(o.seed), static_cast<long long>(o.candidates), o.depth);
}

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--seed") o.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--candidates") o.candidates = std::strtoll(v, nullptr, 10);
    else if (a == "--depth") o.depth = std::atoi(v);
    else if (a == "--seconds") o.seconds = std::atof(v);
    else return false;
  }
  return o.candidates > 0 && o.depth > 0;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: %s [--seed N] [--candidates N] [--depth D] [--seconds S]\n", argv[0]);
    return 2;
  }
  fuzzer f(derive::intra_rules(), derive::program_rules(), o);
  tally t;
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double next_report = 10;
  std::int64_t rounds = 0;
  while (t.checked() < o.candidates && (o.seconds <= 0 || elapsed() < o.seconds)) {
    auto expression_seed = mix(o.seed, static_cast<std::uint64_t>(rounds++));
    f.round(expression_seed, size_profile(expression_seed), t, o.candidates);
    if (elapsed() > next_report) {
      std::fprintf(stderr, "fuzz: %lld rounds, %lld candidates, %.0f s\n", static_cast<long long>(rounds),
                   static_cast<long long>(t.checked()), elapsed());
      next_report += 10;
    }
  }
  std::int64_t passed = t.passed, failed = t.failed;
  if (t.smallest) {
    // Shrink: the failing seed again with smaller size parameters; keep the smallest failure.
    auto seed = t.smallest->expression_seed;
    for (auto& s : shrink_steps(t.smallest->size)) {
      tally again;
      f.round(seed, s, again, 100000);
      if (again.smallest && again.smallest->smaller_than(*t.smallest)) t.smallest = again.smallest;
    }
    print_failure(*t.smallest, o);
  }
  for (auto& [rule, n] : t.per_rule) std::printf("  %-20s %lld candidates\n", rule.c_str(), static_cast<long long>(n));
  std::printf("rounds %lld, %.1f s, %.0f candidates/s\n", static_cast<long long>(rounds), elapsed(),
              static_cast<double>(passed + failed) / std::max(elapsed(), 1e-9));
  std::printf("fuzz: %lld passed, %lld failed\n", static_cast<long long>(passed),
              static_cast<long long>(failed));
  return failed == 0 ? 0 : 1;
}
