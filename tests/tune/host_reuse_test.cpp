// The reuse-based host search's candidates: the start mapped from a similar kernel's best and its
// neighbourhood, on hand-worked shapes and as laws over random ones (every candidate a point of the
// space, none twice, a kernel's own best mapped onto itself).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "ein/tune/host_reuse.hpp"

namespace host_reuse_test {

using namespace ein::tune;

namespace {

kernel_shape shape(std::vector<std::int64_t> traversal, std::int64_t widest) {
  return {"body", std::move(traversal), {16}, widest, std::nullopt, true};
}

// A random shape whose widest lanes divide its innermost extent, as code generation states them.
kernel_shape random_shape(std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  const std::int64_t extents[] = {1, 3, 4, 7, 8, 12, 16, 33, 64, 100, 256};
  kernel_shape k = shape({}, 1);
  for (auto n = pick(1, 4); n-- > 0;) k.traversal.push_back(extents[pick(0, 10)]);
  k.widest_lanes = dividing_power_of_two(k.traversal.back(), std::int64_t{1} << pick(0, 4));
  return k;
}

}  // namespace

TEST_CASE("host_reuse_start scales chunk, lanes and block by the ratio of the extents they cover") {
  const auto big = shape({32, 64}, 16);
  // a quarter of the rows and columns: chunk 16 → 4, 8 lanes → 2
  CHECK(host_reuse_start(big, {1, 16, 8, 0, 0}, shape({8, 16}, 16)) == host_schedule{1, 4, 2, 0, 0});
  // half the columns: a 16×32 block becomes 4×16 (a quarter of the rows), lanes 8 → 4
  CHECK(host_reuse_start(big, {0, 0, 8, 16, 32}, shape({8, 32}, 16)) == host_schedule{0, 0, 4, 4, 16});
  // lanes clamped to the reads' widest; the block dropped where no choice fits inside its loops
  CHECK(host_reuse_start(big, {0, 0, 8, 16, 32}, shape({4, 64}, 2)) == host_schedule{0, 0, 2, 0, 0});
  // ratio 1/2 between chunks 1 and 4: the smaller
  CHECK(host_reuse_start(big, {1, 4, 8, 0, 0}, shape({16, 64}, 16)) == host_schedule{1, 1, 8, 0, 0});
}

TEST_CASE("host_neighbourhood: the start, then the points one choice away along one field") {
  // no shared loop, chunk 1, 2 and 8 lanes; no block (the rows are shared), no second loop shared
  CHECK(host_neighbourhood(shape({8, 32}, 16), {1, 4, 4, 0, 0}) ==
        std::vector<host_schedule>{
            {1, 4, 4, 0, 0}, {0, 0, 4, 0, 0}, {1, 1, 4, 0, 0}, {1, 4, 2, 0, 0}, {1, 4, 8, 0, 0}});
  // a 4×16 block in 8×32 loops: 2 and 8 lanes, no block (rows below 4), 4×8 (8 rows is the loop)
  CHECK(host_neighbourhood(shape({8, 32}, 16), {0, 0, 4, 4, 16}) ==
        std::vector<host_schedule>{
            {0, 0, 4, 4, 16}, {0, 0, 2, 4, 16}, {0, 0, 8, 4, 16}, {0, 0, 4, 0, 0}, {0, 0, 4, 4, 8}});
  // from no block, the smallest whose columns hold the lanes
  const auto n = host_neighbourhood(shape({64, 64}, 16), {0, 0, 16, 0, 0});
  CHECK(std::find(n.begin(), n.end(), host_schedule{0, 0, 16, 4, 16}) != n.end());
}

TEST_CASE("laws over random shapes: the start and its neighbours are points, none twice; a best maps onto itself") {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const kernel_shape from = random_shape(rng);
    kernel_shape to = random_shape(rng);
    to.traversal.resize(from.traversal.size(), 8);
    to.widest_lanes = dividing_power_of_two(to.traversal.back(), to.widest_lanes);
    INFO("seed " << seed);
    const auto space = host_space(from);
    const auto best = space[std::uniform_int_distribution<std::size_t>(0, space.size() - 1)(rng)];
    CHECK(host_reuse_start(from, best, from) == best);
    const auto start = host_reuse_start(from, best, to);
    const auto n = host_neighbourhood(to, start);
    REQUIRE(!n.empty());
    CHECK(n.front() == start);
    CHECK(std::set<host_schedule>(n.begin(), n.end()).size() == n.size());
    for (auto& p : n) CHECK(host_valid(to, p));
  }
}

}  // namespace host_reuse_test
