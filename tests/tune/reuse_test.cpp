// ETO's reuse: the reuse conditions, the minimum-cost arborescence against brute force over small
// random graphs, reuse plans against brute force over small random sets of kernels, and the
// rounds of a reuse-based search.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <random>

#include "ein/tune/host_reuse.hpp"
#include "ein/tune/recorded_sources.hpp"
#include "ein/tune/reuse_plan.hpp"
#include "ein/tune/reuse_rounds.hpp"

namespace reuse_test {

using namespace ein::tune;

namespace {

kernel_shape conv(std::int64_t hw, std::int64_t f, std::int64_t c, std::string body = "conv3x3") {
  return {std::move(body), {1, hw, hw, f}, {3, 3, c}, 16, std::nullopt, true};
}

// The least total cost of choosing, for each node but the root, one arc entering it, such that
// following the chosen arcs back from every node reaches the root; nothing when no choice does.
std::optional<double> brute_force(std::size_t nodes, std::size_t root, const std::vector<arc>& arcs) {
  std::vector<std::vector<std::size_t>> entering(nodes);
  for (std::size_t i = 0; i < arcs.size(); ++i)
    if (arcs[i].to != root && arcs[i].from != arcs[i].to) entering[arcs[i].to].push_back(i);
  std::optional<double> best;
  std::vector<std::size_t> pick(nodes, 0);
  std::function<void(std::size_t)> choose = [&](std::size_t v) {
    if (v == nodes) {
      double cost = 0;
      for (std::size_t u = 0; u < nodes; ++u) {
        if (u == root) continue;
        cost += arcs[entering[u][pick[u]]].cost;
        std::size_t w = u;
        for (std::size_t steps = 0; w != root && steps <= nodes; ++steps) w = arcs[entering[w][pick[w]]].from;
        if (w != root) return;  // a cycle
      }
      if (!best || cost < *best) best = cost;
      return;
    }
    if (v == root) return choose(v + 1);
    for (pick[v] = 0; pick[v] < entering[v].size(); ++pick[v]) choose(v + 1);
  };
  for (std::size_t v = 0; v < nodes; ++v)
    if (v != root && entering[v].empty()) return std::nullopt;
  choose(0);
  return best;
}

// Whether `tree` takes one existing arc into each node but the root, and reaches every node
// from the root, at the cost it states.
bool is_arborescence(const arborescence& tree, std::size_t nodes, std::size_t root, const std::vector<arc>& arcs) {
  double cost = 0;
  for (std::size_t v = 0; v < nodes; ++v) {
    if (v == root) {
      if (tree.entering[v] != arborescence::no_arc) return false;
      continue;
    }
    if (tree.entering[v] >= arcs.size() || arcs[tree.entering[v]].to != v) return false;
    cost += arcs[tree.entering[v]].cost;
    std::size_t w = v;
    for (std::size_t steps = 0; w != root && steps <= nodes; ++steps) w = arcs[tree.entering[w]].from;
    if (w != root) return false;
  }
  return std::abs(cost - tree.cost) < 1e-9;
}

}  // namespace

TEST_CASE("reuse conditions: the same body and one loop nest dominating the other") {
  CHECK(reusable(conv(56, 64, 64), conv(28, 64, 64)));
  CHECK(reusable(conv(28, 64, 64), conv(56, 64, 64)));
  CHECK(reusable(conv(28, 64, 64), conv(56, 128, 128)));
  CHECK(reusable(conv(28, 64, 64), conv(28, 64, 64)));
  CHECK_FALSE(reusable(conv(56, 64, 64), conv(28, 128, 64)));  // 56 > 28 but 64 < 128
  CHECK_FALSE(reusable(conv(56, 64, 64), conv(28, 64, 64, "conv3x3 relu")));
  kernel_shape staged = conv(28, 64, 64);
  staged.staged_y = 1;
  CHECK_FALSE(reusable(conv(56, 64, 64), staged));
  kernel_shape deeper = conv(28, 64, 64);
  deeper.summation.push_back(2);
  CHECK_FALSE(reusable(conv(56, 64, 64), deeper));
}

TEST_CASE("the minimum-cost arborescence of the documented example and of an unreachable node") {
  const std::vector<arc> arcs{{0, 1, 10}, {0, 2, 10}, {1, 2, 1}, {2, 1, 1}};
  auto tree = min_arborescence(3, 0, arcs);
  REQUIRE(tree);
  CHECK(tree->cost == 11);
  CHECK(tree->entering == std::vector<std::size_t>{arborescence::no_arc, 0, 2});
  CHECK_FALSE(min_arborescence(3, 0, {{0, 1, 1}, {1, 0, 1}, {2, 1, 1}}));
  CHECK_THROWS_AS(min_arborescence(2, 0, {{0, 2, 1}}), ein::internal_error);
}

TEST_CASE("the minimum-cost arborescence equals brute force over small random graphs") {
  std::size_t contracted = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::size_t nodes = static_cast<std::size_t>(pick(1, 6)), root = static_cast<std::size_t>(pick(0, static_cast<int>(nodes) - 1));
    std::vector<arc> arcs;
    // small integer costs (ties) and negative ones, parallel arcs, self-loops and arcs into the root
    for (int i = pick(0, 16); i-- > 0;)
      arcs.push_back({static_cast<std::size_t>(pick(0, static_cast<int>(nodes) - 1)),
                      static_cast<std::size_t>(pick(0, static_cast<int>(nodes) - 1)), static_cast<double>(pick(-3, 9))});
    INFO("seed " << seed << ": " << nodes << " nodes, root " << root << ", " << arcs.size() << " arcs");
    const auto expected = brute_force(nodes, root, arcs);
    const auto tree = min_arborescence(nodes, root, arcs);
    REQUIRE(tree.has_value() == expected.has_value());
    if (!tree) continue;
    CHECK(is_arborescence(*tree, nodes, root, arcs));
    CHECK(tree->cost == doctest::Approx(*expected));
    // the cheapest arcs alone would have closed a cycle: the contraction was exercised
    for (std::size_t v = 0; v < nodes; ++v) {
      if (v == root) continue;
      double cheapest = std::numeric_limits<double>::infinity();
      for (auto& a : arcs)
        if (a.to == v && a.from != v) cheapest = std::min(cheapest, a.cost);
      if (arcs[tree->entering[v]].cost > cheapest) {
        ++contracted;
        break;
      }
    }
  }
  CHECK(contracted >= 10);
}

TEST_CASE("a reuse plan tunes one kernel of a family from scratch and the others from it") {
  const std::vector<kernel_shape> kernels{conv(56, 64, 64), conv(28, 64, 64), conv(14, 64, 64), conv(7, 64, 64, "other")};
  const auto plan = plan_reuse(kernels, [](std::size_t) { return 100.0; }, [](std::size_t, std::size_t) { return 10.0; });
  CHECK(plan.cost == 220);
  CHECK(plan.source[3] == reuse_plan::scratch);  // no other kernel has its body
  std::size_t scratch = 0;
  for (std::size_t k = 0; k < 3; ++k) scratch += plan.source[k] == reuse_plan::scratch;
  CHECK(scratch == 1);
  const auto order = plan.order();
  for (std::size_t i = 0; i < order.size(); ++i)
    if (plan.source[order[i]] != reuse_plan::scratch)
      CHECK(std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i), plan.source[order[i]]) !=
            order.begin() + static_cast<std::ptrdiff_t>(i));
  // a reuse dearer than tuning from scratch is not taken; an infinite one is no arc
  const auto dear = plan_reuse(kernels, [](std::size_t) { return 100.0; }, [](std::size_t, std::size_t) { return 150.0; });
  CHECK(dear.cost == 400);
  const auto none = plan_reuse(kernels, [](std::size_t) { return 100.0; },
                               [](std::size_t, std::size_t) { return std::numeric_limits<double>::infinity(); });
  CHECK(none.source == std::vector<std::size_t>(4, reuse_plan::scratch));
}

TEST_CASE("kernels tuned by an earlier build are sources of a reuse plan at no cost of their own") {
  const std::vector<kernel_shape> untuned{conv(28, 64, 64), conv(14, 64, 64), conv(7, 64, 64, "other")};
  auto record = [](const kernel_shape& k) {
    tuning_record r{host_default(k), 1e-5, 2e-5, 8, ""};
    r.shape = k;
    return r;
  };
  std::map<std::string, tuning_record> records{{"a 56", record(conv(56, 64, 64))},
                                               {"b 28x128", record(conv(28, 64, 128))},  // fails (2) against 14
                                               {"c other body", record(conv(7, 64, 64, "third"))},
                                               {"d no shape", {host_default(conv(56, 64, 64)), 1e-5, 2e-5, 8, ""}}};
  auto usable = [](const kernel_shape& k, const schedule& best) {
    const auto* h = std::get_if<host_schedule>(&best);
    return h && host_valid(k, *h);
  };
  const auto sources = reuse_sources(records, untuned, usable);
  REQUIRE(sources.size() == 2);  // the third body's record and the one without a shape are none
  CHECK(sources[0].key == "a 56");
  CHECK(sources[1].key == "b 28x128");  // 28 may reuse it
  CHECK(reuse_sources(records, untuned, [](const kernel_shape&, const schedule&) { return false; }).empty());

  const auto plan = plan_reuse_with_records(
      untuned, sources, [](std::size_t) { return 100.0; },
      [](const kernel_shape&, const schedule* best, const kernel_shape&) { return best ? 10.0 : 12.0; });
  REQUIRE(plan.source.size() == 5);
  CHECK(plan.source[0] >= 3);  // 28 from a record (10), not from 14 of this plan (12)
  CHECK(plan.source[1] == 3);  // 14 from the 56's record: the 28x128 one fails (2)
  CHECK(plan.source[2] == reuse_plan::scratch);
  CHECK(plan.source[3] == reuse_plan::scratch);  // the records themselves, at no cost
  CHECK(plan.source[4] == reuse_plan::scratch);
  CHECK(plan.cost == 120);
  // the host tuner's costs: a recorded source's search starts at its best, a planned one's at its default
  const auto host = plan_host_reuse(untuned, 32, sources);
  CHECK(host.source[1] != reuse_plan::scratch);
  CHECK(plan_host_reuse(untuned, 32).source.size() == 3);
}

TEST_CASE("reuse plans equal brute force over small random sets of kernels") {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<kernel_shape> kernels;
    for (int n = pick(1, 5); n-- > 0;)
      kernels.push_back({pick(0, 1) ? "a" : "b", {pick(1, 3), pick(1, 3)}, {pick(1, 3)}, 1, std::nullopt, true});
    std::vector<double> scratch;
    std::vector<std::vector<double>> reuse(kernels.size(), std::vector<double>(kernels.size()));
    for (std::size_t j = 0; j < kernels.size(); ++j) {
      scratch.push_back(pick(20, 40));
      for (auto& c : reuse[j]) c = pick(1, 30);
    }
    INFO("seed " << seed << ": " << kernels.size() << " kernels");
    const auto plan = plan_reuse(kernels, [&](std::size_t k) { return scratch[k]; },
                                 [&](std::size_t j, std::size_t k) { return reuse[j][k]; });
    // the same choice by brute force: each kernel from scratch or from a kernel it may reuse
    std::vector<arc> arcs;
    const std::size_t root = kernels.size();
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      arcs.push_back({root, k, scratch[k]});
      for (std::size_t j = 0; j < kernels.size(); ++j)
        if (j != k && reusable(kernels[j], kernels[k])) arcs.push_back({j, k, reuse[j][k]});
    }
    CHECK(plan.cost == doctest::Approx(*brute_force(kernels.size() + 1, root, arcs)));
    double cost = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const std::size_t s = plan.source[k];
      if (s != reuse_plan::scratch) CHECK(reusable(kernels[s], kernels[k]));
      cost += s == reuse_plan::scratch ? scratch[k] : reuse[s][k];
    }
    CHECK(cost == doctest::Approx(plan.cost));
  }
}

TEST_CASE("reuse_rounds: the start's neighbourhood, then the best's while it moves and rounds are left") {
  const auto around = [](const int& p) { return std::vector<int>{p, p - 1, p + 1}; };
  reuse_rounds<int> r(8, around, 3);
  auto tried = r.first();
  CHECK(tried == std::vector<int>{8, 7, 9});
  auto next = r.next(7, tried);
  CHECK(next == std::vector<int>{6});
  tried.insert(tried.end(), next.begin(), next.end());
  CHECK(r.next(6, tried) == std::vector<int>{5});
  CHECK(r.next(5, tried).empty());  // three rounds spent

  reuse_rounds<int> still(8, around, 3);
  tried = still.first();
  CHECK(still.next(8, tried).empty());  // the start is the best: the search stands still
  reuse_rounds<int> one(8, around, 1);
  tried = one.first();
  CHECK(one.next(7, tried).empty());  // ETO's one round
  reuse_rounds<int> none(8, around, 0);
  CHECK(none.first() == std::vector<int>{8});
}

TEST_CASE("reuse_rounds: first_after puts the default first, then the first round less it") {
  const auto around = [](const int& p) { return std::vector<int>{p, p - 1, p + 1}; };
  reuse_rounds<int> r(8, around, 3);
  CHECK(r.first_after(7) == std::vector<int>{7, 8, 9});
  reuse_rounds<int> none(8, around, 0);
  CHECK(none.first_after(8) == std::vector<int>{8});
}

}  // namespace reuse_test
