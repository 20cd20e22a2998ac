// The explorative search on several threads finds what it finds on one: the same states in the
// same order, with the same depths, parents, steps and counters, over generated expressions and
// the paper's cases, also when the state budget stops it inside a level; and a search chooses
// the same plan.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ein/derive/all.hpp"
#include "support/generate.hpp"
#include "ein/search/explore.hpp"
#include "ein/search/optimize.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "search/rediscover_support.hpp"

namespace explore_threads_test {

using namespace ein;

namespace {

// Everything explore reports but the seconds.
void check_same(const search::explored& one, const search::explored& many) {
  REQUIRE(one.states.size() == many.states.size());
  for (std::size_t i = 0; i < one.states.size(); ++i) {
    auto &a = one.states[i], &b = many.states[i];
    CAPTURE(i);
    REQUIRE(a.form == b.form);
    CHECK(a.form == ir::canonical_string(*b.expr));
    CHECK(a.depth == b.depth);
    CHECK(a.parent == b.parent);
    CHECK(derive::to_string(a.how) == derive::to_string(b.how));
  }
  auto &s = one.stats, &t = many.stats;
  CHECK(s.states == t.states);
  CHECK(s.candidates == t.candidates);
  CHECK(s.pruned == t.pruned);
  CHECK(s.depth == t.depth);
  CHECK(s.states_per_depth == t.states_per_depth);
  CHECK(s.pruned_per_depth == t.pruned_per_depth);
  CHECK(s.seconds_to_depth.size() == t.seconds_to_depth.size());
  CHECK(s.reason == t.reason);
}

// Explores `source` to `depth` on 1, 2 and 4 threads and checks that they agree; then again with
// a state budget that stops the search in the middle of its deepest level. Returns the most
// states one level of the unbounded one-thread run added.
std::uint64_t check_threads(const ir::scope_ptr& source, int depth, bool prune = true) {
  search::budget b;
  b.max_depth = depth;
  auto one = search::explore(source, derive::intra_rules(), b, prune, {}, 1);
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    check_same(one, search::explore(source, derive::intra_rules(), b, prune, {}, threads));
  }
  auto& per_depth = one.stats.states_per_depth;
  auto widest = *std::max_element(per_depth.begin(), per_depth.end());
  if (per_depth.size() < 2 || per_depth.back() < 2) return widest;
  b.max_states = one.stats.states - per_depth.back() / 2;
  auto cut = search::explore(source, derive::intra_rules(), b, prune, {}, 1);
  REQUIRE(cut.stats.reason == search::stop_reason::states);
  REQUIRE(cut.states.back().depth == static_cast<int>(per_depth.size()) - 1);
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    CAPTURE(b.max_states);
    check_same(cut, search::explore(source, derive::intra_rules(), b, prune, {}, threads));
  }
  return widest;
}

}  // namespace

TEST_CASE("explore on 1, 2 and 4 threads: the same states over a generated family") {
  eval::generate_options small;
  small.max_extent = 5;
  small.max_work = 4000;
  std::uint64_t wide = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto g = eval::generate(seed, small);
    CAPTURE(seed);
    CAPTURE(g.family);
    // a level of more than one block on 2 threads (search::explore_block_per_thread each)
    wide += check_threads(g.scope, 2) > 2 * search::explore_block_per_thread;
  }
  MESSAGE(wide << " of 40 expressions have a level of more than one block on 2 threads");
  CHECK(wide > 0);
}

TEST_CASE("explore on 1, 2 and 4 threads: the same states on the paper's cases, pruned and not") {
  using namespace search_test;
  struct paper_case {
    const char* name;
    ir::scope_ptr source;
    int depth;
  };
  std::vector<paper_case> cases = {{"Conv3x3", conv(7, 512, 512, 3, 1), 4},
                                   {"ConvTranspose", conv_transpose(16, 2, 448, 256, 4, 2, 1), 3},
                                   {"Conv5x5", conv_nhwc(16, 224, 32, 32, 5, 5, 1, 2, 2, 1), 3},
                                   {"G2BMM", g2bmm(8, 10000, 64, 1000, 4), 4}};
  for (auto& c : cases) {
    CAPTURE(c.name);
    // a level of more than one block on 4 threads
    CHECK(check_threads(c.source, c.depth) > 4 * search::explore_block_per_thread);
    check_threads(c.source, 2, false);
  }
}

TEST_CASE("optimize on 1 and 4 threads chooses the same plan through the same steps") {
  using namespace search_test;
  struct paper_case {
    ir::scope_ptr source;
    int explore, converge;
  };
  for (auto& [source, explore, converge] :
       std::vector<paper_case>{{conv(7, 512, 512, 3, 1), 2, 3}, {g2bmm(8, 10000, 64, 1000, 4), 3, 1}}) {
    search::options o;
    o.explore_depth = explore;
    o.converge_depth = converge;
    o.threads = 1;
    auto one = search::optimize(source, derive::intra_rules(), h100(), o);
    o.threads = 4;
    auto four = search::optimize(source, derive::intra_rules(), h100(), o);
    CAPTURE(ir::to_string(*source));
    CHECK(one.chosen == four.chosen);
    CHECK(one.best.str() == four.best.str());
    REQUIRE(one.candidates.size() == four.candidates.size());
    for (std::size_t i = 0; i < one.candidates.size(); ++i) {
      CHECK(one.candidates[i].p.str() == four.candidates[i].p.str());
      auto &a = one.candidates[i].steps, &b = four.candidates[i].steps;
      REQUIRE(a.size() == b.size());
      for (std::size_t k = 0; k < a.size(); ++k) CHECK(derive::to_string(a[k]) == derive::to_string(b[k]));
    }
    CHECK(one.stats.explore.states == four.stats.explore.states);
    CHECK(one.stats.converge.states == four.stats.converge.states);
  }
}

TEST_CASE("explore_threads shares the threads among the searches that run at once") {
  CHECK(search::explore_threads(8, 1, 0) == 8);
  for (unsigned threads : {1u, 2u, 7u, 16u})
    for (std::size_t searches = 1; searches <= 20; ++searches) {
      CAPTURE(threads);
      CAPTURE(searches);
      unsigned sum = 0;
      for (std::size_t w = 0; w < std::min<std::size_t>(searches, threads); ++w) {
        auto t = search::explore_threads(threads, searches, w);
        CHECK(t >= 1);
        sum += t;
      }
      CHECK(sum == threads);  // the searches running at once use every thread, none twice
    }
}

}  // namespace explore_threads_test
