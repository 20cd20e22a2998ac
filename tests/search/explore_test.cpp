// Explorative derivation: pruning keeps every result, budgets stop with a reason, runs repeat.
#include <doctest/doctest.h>

#include <set>

#include "ein/derive/all.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/search/explore.hpp"

namespace explore_test {

using namespace ein;
using namespace ein::ir;

namespace {

// Conv3x3 (NHWC, padding 1) at a size the interpreter checks quickly.
scope_ptr small_conv() {
  tensor A{"A", dtype::f32, {4, 4, 2}}, K{"K", dtype::f32, {3, 3, 2, 2}};
  return make_scope({{"h", 0, 4}, {"w", 0, 4}, {"f", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 2}},
                    make_access(A, {idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                        make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

std::set<std::string> forms(const search::explored& e) {
  std::set<std::string> s;
  for (auto& st : e.states) s.insert(canonical_string(*st.expr));
  return s;
}

}  // namespace

TEST_CASE("explore: pruning by fingerprint finds exactly the results found without it") {
  auto src = small_conv();
  for (int depth = 1; depth <= 2; ++depth) {
    search::budget b;
    b.max_depth = depth;
    auto pruned = search::explore(src, derive::intra_rules(), b, true);
    auto full = search::explore(src, derive::intra_rules(), b, false);
    CAPTURE(depth);
    CHECK(forms(pruned) == forms(full));
    CHECK(pruned.stats.states == forms(pruned).size());  // no duplicates kept
    if (depth >= 2) CHECK(full.stats.states > pruned.stats.states);  // duplicates need 2 steps
    CHECK(pruned.stats.pruned + pruned.stats.states == pruned.stats.candidates + 1);
  }
}

TEST_CASE("explore: every state equals the source under the interpreter") {
  auto src = small_conv();
  search::budget b;
  b.max_depth = 2;
  auto e = search::explore(src, derive::intra_rules(), b);
  eval::random_stream rng(7);
  eval::bindings env{{"A", eval::random_dense({4, 4, 2}, rng)},
                     {"K", eval::random_dense({3, 3, 2, 2}, rng)}};
  auto ref = eval::evaluate(*src, env);
  for (std::size_t i = 0; i < e.states.size(); ++i) {
    auto got = eval::evaluate(*e.states[i].expr, env);
    REQUIRE(got.shape == ref.shape);
    for (std::size_t k = 0; k < ref.data.size(); ++k)
      REQUIRE(got.data[k] == doctest::Approx(ref.data[k]).epsilon(1e-9));
  }
  // the shallowest depth is recorded, and paths have that many steps
  for (std::size_t i = 0; i < e.states.size(); ++i)
    CHECK(e.path(i).size() == static_cast<std::size_t>(e.states[i].depth));
}

TEST_CASE("explore: budgets stop the search and say why") {
  auto src = small_conv();
  search::budget b;
  b.max_depth = 3;
  b.max_states = 25;
  auto e = search::explore(src, derive::intra_rules(), b);
  CHECK(e.stats.reason == search::stop_reason::states);
  CHECK(e.stats.states == 25);
  b.max_states = 1'000'000;
  b.max_depth = 1;
  CHECK(search::explore(src, derive::intra_rules(), b).stats.reason == search::stop_reason::depth);
  b.max_depth = 0;
  CHECK(search::explore(src, derive::intra_rules(), b).stats.states == 1);
}

TEST_CASE("explore: the same search twice gives the same states in the same order") {
  search::budget b;
  b.max_depth = 2;
  auto x = search::explore(small_conv(), derive::intra_rules(), b);
  auto y = search::explore(small_conv(), derive::intra_rules(), b);
  REQUIRE(x.states.size() == y.states.size());
  for (std::size_t i = 0; i < x.states.size(); ++i) {
    CHECK(canonical_string(*x.states[i].expr) == canonical_string(*y.states[i].expr));
    CHECK(derive::to_string(x.states[i].how) == derive::to_string(y.states[i].how));
  }
}

}  // namespace explore_test
