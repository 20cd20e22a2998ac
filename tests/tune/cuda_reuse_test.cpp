// The reuse-based CUDA search's candidates: the start mapped from a similar kernel's best and its
// neighbourhood, on hand-worked shapes and as laws over random ones (every candidate a point of the
// space, none twice, a kernel's own best mapped onto itself).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "ein/tune/cuda_reuse.hpp"

namespace cuda_reuse_test {

using namespace ein::tune;

namespace {

kernel_shape shape(std::vector<std::int64_t> traversal, std::int64_t widest, std::optional<std::size_t> staged = {}) {
  return {"body", std::move(traversal), {16}, widest, staged, true};
}

// A random shape whose widest lanes divide its innermost extent and whose staged read, where it
// has one, lies along another traversal iterator, as code generation states them.
kernel_shape random_shape(std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const std::int64_t extents[] = {1, 3, 4, 7, 8, 12, 16, 33, 64, 100, 256};
  kernel_shape k = shape({}, 1);
  for (auto n = pick(1, 4); n-- > 0;) k.traversal.push_back(extents[pick(0, 10)]);
  k.widest_lanes = dividing_power_of_two(k.traversal.back(), std::int64_t{1} << pick(0, 4));
  if (k.traversal.size() >= 2 && pick(0, 1)) k.staged_y = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(k.traversal.size()) - 2));
  k.int_indices = pick(0, 1) == 1;
  return k;
}

}  // namespace

TEST_CASE("cuda_reuse_start keeps threads, unroll, tile and index type, and scales the lanes") {
  const auto big = shape({64, 64}, 16);
  // a quarter of the columns, lanes up to 4: 4 lanes → 1
  CHECK(cuda_reuse_start(big, {128, 8, 4, 0, false}, shape({64, 16}, 4)) == cuda_schedule{128, 8, 1, 0, false});
  // the same columns: the same point
  CHECK(cuda_reuse_start(big, {512, 2, 4, 0, true}, shape({8, 64}, 16)) == cuda_schedule{512, 2, 4, 0, true});
  // `int` only where the target's indices fit
  auto wide = shape({8, 64}, 16);
  wide.int_indices = false;
  CHECK(cuda_reuse_start(big, {512, 2, 4, 0, true}, wide) == cuda_schedule{512, 2, 4, 0, false});
  // a tile kept where the target stages a read, its rows up to what the target's tile covers
  const auto staged = shape({100, 64}, 1, 0), short_rows = shape({12, 64}, 1, 0);
  CHECK(cuda_reuse_start(staged, {256, 1, 1, 32, true}, short_rows) == cuda_schedule{256, 1, 1, 16, true});
  // a tile's threads that do not divide the shorter tile: the target's default
  CHECK(cuda_reuse_start(staged, {1024, 1, 1, 32, true}, short_rows) == cuda_default(short_rows));
  // a tiled best onto a kernel that stages nothing: flat, the default's unroll
  CHECK(cuda_reuse_start(staged, {128, 1, 1, 32, true}, big) == cuda_schedule{128, 4, 1, 0, true});
}

TEST_CASE("cuda_neighbourhood: the start, then the points one choice away along one field") {
  CHECK(cuda_neighbourhood(shape({64, 64}, 16), {256, 4, 4, 0, true}) ==
        std::vector<cuda_schedule>{{256, 4, 4, 0, true},
                                   {128, 4, 4, 0, true},
                                   {256, 2, 4, 0, true},
                                   {256, 4, 2, 0, true},
                                   {512, 4, 4, 0, true},
                                   {256, 8, 4, 0, true},
                                   {256, 4, 4, 0, false}});
  // a tile of 16 rows: fewer and more threads, 8 rows, no 32 rows (the tile covers 12), no
  // unroll or lanes (a tiled kernel's are 1), the other index type
  CHECK(cuda_neighbourhood(shape({12, 64}, 1, 0), {256, 1, 1, 16, true}) ==
        std::vector<cuda_schedule>{{256, 1, 1, 16, true},
                                   {128, 1, 1, 16, true},
                                   {256, 1, 1, 8, true},
                                   {512, 1, 1, 16, true},
                                   {256, 1, 1, 16, false}});
  const auto from_flat = cuda_neighbourhood(shape({12, 64}, 1, 0), {256, 1, 1, 0, true});
  CHECK(std::find(from_flat.begin(), from_flat.end(), cuda_schedule{256, 1, 1, 8, true}) != from_flat.end());
}

TEST_CASE("laws over random CUDA shapes: the start and its neighbours are points, none twice; a best maps onto itself") {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const kernel_shape from = random_shape(rng);
    const kernel_shape to = random_shape(rng);
    INFO("seed " << seed);
    const auto space = cuda_space(from);
    REQUIRE(!space.empty());
    const auto best = space[std::uniform_int_distribution<std::size_t>(0, space.size() - 1)(rng)];
    CHECK(cuda_reuse_start(from, best, from) == best);
    const auto start = cuda_reuse_start(from, best, to);
    const auto n = cuda_neighbourhood(to, start);
    REQUIRE(!n.empty());
    CHECK(n.front() == start);
    CHECK(std::set<cuda_schedule>(n.begin(), n.end()).size() == n.size());
    for (auto& p : n) CHECK(cuda_valid(to, p));
  }
}

}  // namespace cuda_reuse_test

namespace cuda_reuse_test {

TEST_CASE("plan_cuda_reuse: of three kernels of one body, one is tuned from scratch and two by reuse; another body is a root") {
  auto other = shape({32, 64}, 4);
  other.body = "another body";
  const std::vector<kernel_shape> kernels{shape({32, 64}, 4), shape({16, 64}, 4), shape({8, 32}, 4), other};
  const auto plan = plan_cuda_reuse(kernels, 32);
  CHECK(std::count(plan.source.begin(), plan.source.begin() + 3, reuse_plan::scratch) == 1);
  for (std::size_t k = 0; k < 3; ++k) CHECK((plan.source[k] == reuse_plan::scratch || plan.source[k] < 3));
  CHECK(plan.source[3] == reuse_plan::scratch);
}

}  // namespace cuda_reuse_test
