// Budgets and determinism of the program-level search: a time budget stops it within 10% (or
// 1 s) with the best plan found so far, marked cut; the number of threads changes nothing but
// the time; EIN_THREADS sets it.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "ein/derive/all.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "search/rediscover_support.hpp"

namespace budget_test {

using namespace ein;
using namespace ein::ir;
using search_test::h100;

namespace {

// Four of the paper's expressions as one program, each a definition and an output.
program paper_program() {
  program p{"paper", {}, {}, {}};
  auto add = [&](const std::string& name, const scope_ptr& s) {
    std::map<std::string, tensor> reads;
    search_test::collect_tensors(*s, reads);
    for (auto& [n, t] : reads) {
      auto renamed = t;
      renamed.name = name + "_" + n;
      p.tensors.push_back(renamed);
    }
    auto body = derive::map_accesses(s->body, [&](const ir::access& a) -> expr {
      auto t = std::get<tensor>(a.source);
      t.name = name + "_" + t.name;
      return make_access(t, a.index);
    });
    p.definitions.push_back({name, make_scope(s->traversal, s->summation, body), dtype::f32});
    p.outputs.push_back(name);
  };
  add("conv3x3", search_test::conv(6, 4, 4, 3, 1));
  add("conv5x5", search_test::conv(6, 4, 4, 5, 2));
  add("conv_transpose", search_test::conv_transpose(1, 3, 4, 4, 4, 2, 1));
  add("g2bmm", search_test::g2bmm(1, 8, 4, 2, 2));
  return p;
}

void check_equals_source(const program& source, const program& optimized) {
  auto env = eval::random_inputs(source, 11);
  auto want = eval::evaluate(source, env), got = eval::evaluate(optimized, env);
  for (auto& o : source.outputs) {
    CAPTURE(o);
    CHECK(eval::max_rel_error(got.at(o), want.at(o)) < 1e-9);
  }
}

// Deeper than the defaults: unbounded, this search takes far longer than the budgets below.
search::options deep(std::chrono::milliseconds budget, unsigned threads) {
  search::options o;
  o.explore_depth = 4;
  o.converge_depth = 5;
  o.limits.time = budget;
  o.threads = threads;
  return o;
}

// Shallower than the defaults: the whole search takes a second or two.
search::options shallow(unsigned threads = 0) {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  o.threads = threads;
  return o;
}

// Sets an environment variable for the life of the object.
class environment_variable {
 public:
  environment_variable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  environment_variable(const environment_variable&) = delete;
  environment_variable& operator=(const environment_variable&) = delete;
  ~environment_variable() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("a time budget stops the program search within 10% (or 1 s), with the best plan so far, marked cut") {
  auto source = paper_program();
  for (auto [budget, threads] : {std::pair{std::chrono::milliseconds(1500), 1u}, std::pair{std::chrono::milliseconds(3000), 2u}}) {
    CAPTURE(budget.count());
    CAPTURE(threads);
    auto start = std::chrono::steady_clock::now();
    auto r = search::optimize_program(source, derive::intra_rules(), h100(), deep(budget, threads));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double limit = std::chrono::duration<double>(budget).count();
    MESSAGE("budget " << limit << " s on " << threads << " threads: returned after " << took << " s; " << r.summary());
    CHECK(took <= limit + std::max(0.1 * limit, 1.0));
    CHECK(r.cut());
    CHECK(r.reason() == search::stop_reason::time);
    CHECK(r.summary().find("stop: time") != std::string::npos);
    CHECK(r.states() > 0);
    check_equals_source(source, r.program);
  }
}

TEST_CASE("a spent budget takes every subprogram as written, cut, and still computes the program") {
  auto source = paper_program();
  auto r = search::optimize_program(source, derive::intra_rules(), h100(), deep(std::chrono::milliseconds(0), 2));
  CHECK(r.cut());
  CHECK(r.states() == 0);
  for (auto& s : r.subprograms) {
    CAPTURE(s.name);
    CHECK(s.result.candidates.size() == 1);
    CHECK(s.result.stats.reason == search::stop_reason::time);
  }
  check_equals_source(source, r.program);
  // an unbounded search is not cut
  auto whole = search::optimize_program(source, derive::intra_rules(), h100(), shallow());
  CHECK(!whole.cut());
  CHECK(whole.reason() == search::stop_reason::exhausted);
}

TEST_CASE("the number of search threads changes nothing but the time") {
  auto source = paper_program();
  std::optional<std::string> first;
  for (unsigned threads : {1u, 2u, 8u}) {
    CAPTURE(threads);
    auto r = search::optimize_program(source, derive::intra_rules(), h100(), shallow(threads));
    CHECK(r.threads == std::min(threads, 4u));
    auto text = to_string(r.program) + "\n" + r.summary();
    if (!first) first = text;
    CHECK(text == *first);
  }
}

TEST_CASE("EIN_THREADS sets the search's threads where options do not") {
  {
    environment_variable set("EIN_THREADS", "3");
    CHECK(search::search_threads() == 3);
    CHECK(search::search_threads(5) == 5);
  }
  for (const char* bad : {"0", "-2", "two", "3x", "", "100000"}) {
    CAPTURE(bad);
    environment_variable set("EIN_THREADS", bad);
    CHECK_THROWS_WITH_AS(search::search_threads(), doctest::Contains("EIN_THREADS="), user_error);
  }
  environment_variable unset("EIN_THREADS", nullptr);
  CHECK(search::search_threads() >= 1);
}

}  // namespace budget_test
