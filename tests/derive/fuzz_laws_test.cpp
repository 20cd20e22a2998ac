// Laws every listed rule obeys on generated expressions: its candidates verify, equal the
// source under the interpreter, are no silent no-ops, name their rule (and, for intra-expression
// rules, a position of the source) and come out the same on every call.
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ein/derive/all.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"
#include "input_twin.hpp"

namespace fuzz_laws_test {

using namespace ein;

namespace {

constexpr double tolerance = 1e-9;

// Whether `at` is a position of a scope in `root`.
bool at_position(const ir::scope_ptr& root, const derive::path& at) {
  bool found = false;
  derive::for_each_position(root, [&](const ir::scope_ptr&, const derive::path& p) { found = found || p == at; });
  return found;
}

// The first law `rule` breaks on `source`, or nothing.
std::optional<std::string> violation(const derive::rule& rule, const ir::scope_ptr& source,
                                     const eval::bindings& env) {
  try {
    auto reference = eval::evaluate(*source, env);
    auto fingerprint = ir::fingerprint(*source);
    auto canonical = ir::canonical_string(*source);
    auto candidates = rule.apply(source);
    auto again = rule.apply(source);
    if (again.size() != candidates.size()) return "not deterministic: candidate counts differ";
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      auto& c = candidates[i];
      std::string what = derive::to_string(c.how) + " -> " + ir::to_string(*c.result);
      if (c.how.rule != rule.name) return "provenance names `" + std::string(c.how.rule) + "`: " + what;
      if (!c.how.at || !at_position(source, *c.how.at)) return "provenance names no position of the source: " + what;
      ir::verify(*c.result);
      auto value = eval::evaluate(*c.result, env);
      double err = eval::max_rel_error(value, reference);
      if (!(err <= tolerance)) return "not equal (relative error " + std::to_string(err) + "): " + what;
      if (ir::fingerprint(*c.result) == fingerprint && ir::canonical_string(*c.result) == canonical)
        return "a silent no-op: " + what;
      if (derive::to_string(again[i].how) != derive::to_string(c.how) ||
          ir::to_string(*again[i].result) != ir::to_string(*c.result))
        return "not deterministic at candidate " + std::to_string(i) + ": " + what;
    }
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> violation(const derive::program_rule& rule, const ir::program& source) {
  try {
    auto inputs = eval::random_inputs(source, 11);
    auto reference = eval::evaluate(source, inputs);
    auto fingerprint = ir::fingerprint(source);
    auto candidates = rule.apply(source);
    auto again = rule.apply(source);
    if (again.size() != candidates.size()) return "not deterministic: candidate counts differ";
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      auto& c = candidates[i];
      std::string what = derive::to_string(c.how) + " ->\n" + ir::to_string(c.result);
      if (c.how.rule != rule.name) return "provenance names `" + std::string(c.how.rule) + "`: " + what;
      ir::verify(c.result);
      if (c.result.outputs != source.outputs) return "outputs changed: " + what;
      auto values = eval::evaluate(c.result, inputs);
      for (auto& o : source.outputs) {
        double err = eval::max_rel_error(values.at(o), reference.at(o));
        if (!(err <= tolerance)) return "output " + o + " not equal (" + std::to_string(err) + "): " + what;
      }
      if (ir::fingerprint(c.result) == fingerprint) return "a silent no-op: " + what;
      if (derive::to_string(again[i].how) != derive::to_string(c.how) ||
          ir::to_string(again[i].result) != ir::to_string(c.result))
        return "not deterministic at candidate " + std::to_string(i) + ": " + what;
    }
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
  return std::nullopt;
}

eval::generate_options small(int extent, int rank, int nesting) {
  eval::generate_options o;
  o.max_extent = extent;
  o.max_rank = rank;
  o.max_nesting = nesting;
  o.max_summation = std::min(3, rank);
  o.max_body = std::min(3, rank);
  o.max_work = 3000;
  return o;
}

// On a failure, the same seed generated again with smaller sizes: the smallest expression that
// still breaks the law, for the message.
std::string shrink(const derive::rule& rule, std::uint64_t seed, std::string first) {
  std::string best = std::move(first);
  for (int extent : {4, 3, 2})
    for (int rank : {3, 2, 1})
      for (int nesting : {1, 0}) {
        auto g = eval::generate(seed, small(extent, rank, nesting));
        auto env = eval::random_inputs(g, seed);
        if (auto v = violation(rule, g.scope, env))
          best = "smaller (max_extent " + std::to_string(extent) + ", max_rank " + std::to_string(rank) +
                 ", max_nesting " + std::to_string(nesting) + "): " + ir::to_string(*g.scope) + "\n  " + *v;
      }
  return best;
}

}  // namespace

TEST_CASE("laws: every intra-expression rule on generated expressions and on their derivatives") {
  auto rules = derive::intra_rules();
  std::vector<std::size_t> produced(rules.size(), 0);
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    auto g = eval::generate(seed, small(5, 4, 1));
    auto env = eval::random_inputs(g, seed);
    for (std::size_t r = 0; r < rules.size(); ++r) {
      if (auto v = violation(rules[r], g.scope, env))
        FAIL("rule " << rules[r].name << ", seed " << seed << "\n  " << ir::to_string(*g.scope) << "\n  " << *v
                     << "\n  " << shrink(rules[r], seed, ""));
      auto candidates = rules[r].apply(g.scope);
      produced[r] += candidates.size();
      // one step further: every rule on the first candidate (positions inside new scopes)
      if (candidates.empty()) continue;
      for (auto& next : rules)
        if (auto v = violation(next, candidates.front().result, env))
          FAIL("rule " << next.name << " after " << derive::to_string(candidates.front().how) << ", seed " << seed << "\n  " << ir::to_string(*candidates.front().result) << "\n  " << *v);
    }
  }
  for (std::size_t r = 0; r < rules.size(); ++r) {
    INFO("rule " << rules[r].name << " never applied to the generated family");
    CHECK(produced[r] > 0);
  }
}

TEST_CASE("laws: every inter-expression rule on generated programs") {
  auto rules = derive::program_rules();
  std::vector<std::size_t> produced(rules.size(), 0);
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    auto generated = eval::generate_program(seed, small(5, 3, 1));
    for (auto& p : {generated, derive_test::input_twin(generated)})
      for (std::size_t r = 0; r < rules.size(); ++r) {
        if (auto v = violation(rules[r], p))
          FAIL("rule " << rules[r].name << ", seed " << seed << "\n" << ir::to_string(p) << *v);
        produced[r] += rules[r].apply(p).size();
      }
  }
  for (std::size_t r = 0; r < rules.size(); ++r) {
    INFO("rule " << rules[r].name << " never applied to the generated programs");
    CHECK(produced[r] > 0);
  }
}

TEST_CASE("laws: every intra-expression rule on generated expressions with max and min") {
  // the rules proven for a max (docs/rules.md) must also rewrite some max or min scope here
  auto rules = derive::intra_rules();
  std::map<std::string, std::size_t> at_max;
  auto options = small(5, 4, 1);
  options.max_percent = 40;
  // every rule on `source`, counting the candidates that rewrote a max or min scope
  auto check_rules = [&](const ir::scope_ptr& source, const eval::bindings& env, std::uint64_t seed) {
    for (auto& rule : rules) {
      if (auto v = violation(rule, source, env))
        FAIL("rule " << rule.name << ", seed " << seed << "\n  " << ir::to_string(*source) << "\n  " << *v);
      for (auto& c : rule.apply(source))
        derive::for_each_position(source, [&](const ir::scope_ptr& s, const derive::path& p) {
          if (p == *c.how.at && s->reduce != ir::reduction::sum) ++at_max[rule.name];
        });
    }
  };
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    auto g = eval::generate(seed, options);
    auto env = eval::random_inputs(g, seed);
    check_rules(g.scope, env, seed);
    // one step further: the rules on each rule's first candidate (a split max merges back)
    for (auto& rule : rules)
      if (auto cs = rule.apply(g.scope); !cs.empty()) check_rules(cs.front().result, env, seed);
  }
  for (const char* name : {"split_summation", "substitute_variable", "merge_traversal", "split_variable"}) {
    INFO("rule " << std::string(name) << " never rewrote a max or min scope of the generated family");
    CHECK(at_max[name] > 0);
  }
  for (const char* name : {"relax_boundary", "tighten_boundary", "relayout_weight"}) {
    INFO("rule " << std::string(name) << " rewrote a max or min scope");
    CHECK(at_max[name] == 0);
  }
}

}  // namespace fuzz_laws_test
