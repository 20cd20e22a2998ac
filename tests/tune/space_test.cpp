// The schedule spaces: today's fixed schedules as their default points, hand-counted spaces, and
// laws over random kernel shapes (every point keeps the emitters' constraints, none repeats).
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/host_schedule.hpp"

namespace space_test {

using namespace ein::tune;

namespace {

kernel_shape shape(std::vector<std::int64_t> traversal, std::vector<std::int64_t> summation, std::int64_t widest,
                   std::optional<std::size_t> staged = std::nullopt, bool fits = true) {
  return {"body", std::move(traversal), std::move(summation), widest, staged, fits};
}

// A random shape whose facts hold as code generation states them: widest lanes a power of two
// dividing the innermost extent, a staged read along a traversal iterator other than the last.
kernel_shape random_shape(std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  kernel_shape k;
  k.body = "body";
  const std::int64_t extents[] = {1, 3, 4, 7, 8, 12, 16, 33, 64, 100, 256};
  for (auto n = pick(0, 4); n-- > 0;) k.traversal.push_back(extents[pick(0, 10)]);
  for (auto n = pick(0, 2); n-- > 0;) k.summation.push_back(extents[pick(0, 10)]);
  if (!k.traversal.empty()) k.widest_lanes = dividing_power_of_two(k.traversal.back(), std::int64_t{1} << pick(0, 4));
  if (k.traversal.size() >= 2 && pick(0, 1)) k.staged_y = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(k.traversal.size()) - 2));
  k.int_indices = pick(0, 1) == 1;
  return k;
}

}  // namespace

TEST_CASE("the host default is today's fixed schedule") {
  // a 64×64×64 matmul: threads share the rows, 8 lanes along the columns
  CHECK(host_default(shape({64, 64}, {64}, 16)) == host_schedule{1, 0, 8, 0, 0});
  // a relu over (1,7,7,512): 25088 outputs are below host_fixed::parallel_work, and no sum:
  // 1 lane, a plain loop the compiler vectorizes
  CHECK(host_default(shape({1, 7, 7, 512}, {}, 16)) == host_schedule{0, 0, 1, 0, 0});
  // over (1,14,14,1024), three loops hold 196 iterations
  CHECK(host_default(shape({1, 14, 14, 1024}, {}, 16)) == host_schedule{3, 0, 1, 0, 0});
  // a batch-1 convolution: the batch and one row hold fewer than 64 iterations, so 3 loops are shared
  CHECK(host_default(shape({1, 56, 56, 64}, {3, 3, 64}, 16)) == host_schedule{3, 0, 8, 0, 0});
  // where it sums, lanes_of tries only the largest dividing count: 8 for an extent of 64, which
  // reads allowing only 4 refuse, leaving 1; an extent of 12 gives 4
  CHECK(host_default(shape({64, 64}, {8}, 4)).lanes == 1);
  CHECK(host_default(shape({64, 12}, {8}, 4)).lanes == 4);
  CHECK(host_default(shape({}, {5}, 1)) == host_schedule{});
}

TEST_CASE("the host default shares the fewest outer loops that hold 64 iterations, from 2^15 multiply-adds on") {
  // A family of boxes: every traversal of one to four loops with extents from {1, 3, 8, 70}, with
  // and without a sum of 500 terms.
  const std::vector<std::int64_t> extents{1, 3, 8, 70};
  int parallel = 0;
  for (std::size_t n = 1; n <= 4; ++n)
    for (std::size_t pick = 0; pick < std::size_t(1) << (2 * n); ++pick)
      for (bool summed : {false, true}) {
        kernel_shape s = shape({}, {}, 1);
        std::int64_t work = summed ? 500 : 1;
        for (std::size_t d = 0; d < n; ++d) {
          s.traversal.push_back(extents[(pick >> (2 * d)) & 3]);
          work *= s.traversal.back();
        }
        if (summed) s.summation.push_back(500);
        CAPTURE(n);
        CAPTURE(pick);
        CAPTURE(summed);
        const std::size_t k = host_default(s).parallel_loops;
        CHECK((k == 0) == (work < host_fixed::parallel_work));
        if (k == 0) continue;
        ++parallel;
        CHECK(k <= (n == 1 ? 1 : n - 1));
        std::int64_t before = 1;
        for (std::size_t d = 0; d + 1 < k; ++d) before *= s.traversal[d];
        CHECK(before < host_fixed::parallel_iterations);  // none fewer would do
        if (k < n - 1) CHECK(before * s.traversal[k - 1] >= host_fixed::parallel_iterations);
      }
  CHECK(parallel > 0);
}

TEST_CASE("the CUDA default is today's fixed schedule") {
  // a long sum: one item per thread, 4 lanes
  CHECK(cuda_default(shape({64, 64}, {64}, 16)) == cuda_schedule{256, 1, 4, 0, true});
  // a short one: 4 items per thread
  CHECK(cuda_default(shape({1, 7, 7, 512}, {}, 16)) == cuda_schedule{256, 4, 4, 0, true});
  CHECK(cuda_default(shape({64, 64}, {3, 3}, 16, std::nullopt, false)) == cuda_schedule{256, 4, 4, 0, false});
  // a transpose staged along y = 0 (extents 40, 12 and 5: rows 32, 16 and 8)
  CHECK(cuda_default(shape({40, 100}, {}, 1, 0)) == cuda_schedule{256, 1, 1, 32, true});
  CHECK(cuda_default(shape({12, 100}, {}, 1, 0)).tile_rows == 16);
  CHECK(cuda_default(shape({5, 100}, {}, 1, 0)).tile_rows == 8);
}

TEST_CASE("hand-counted spaces") {
  // one loop of 4, no vectors: one thread; or shared in even shares or chunks of 1 (4 is not below 4)
  const auto host = host_space(shape({4}, {}, 1));
  CHECK(host == std::vector<host_schedule>{{0, 0, 1, 0, 0}, {1, 0, 1, 0, 0}, {1, 1, 1, 0, 0}});
  // flat only, 64-bit indices only: 4 thread counts × 4 unrolls, and 1024 threads unrolling nothing
  CHECK(cuda_space(shape({4}, {}, 1, std::nullopt, false)).size() == 17);
  // the same over a sum of 64 terms: no unroll (unrolled long sums spill), 5 thread counts
  CHECK(cuda_space(shape({4}, {64}, 1, std::nullopt, false)).size() == 5);
  // staged along a y of 8: rows 8 only (more covers nothing), 64, 128 or 256 threads; plus the 17 flat ones
  const auto staged = cuda_space(shape({8, 100}, {}, 1, 0, false));
  CHECK(staged.size() == 20);
  CHECK(std::count_if(staged.begin(), staged.end(), [](auto& s) { return s.tile_rows == 8; }) == 3);
  // two loops of 16 and 32, lanes up to 2: the blockings of rows 4 or 8 by columns 8 or 16
  const auto blocked = host_space(shape({16, 32}, {}, 2));
  std::set<std::pair<std::int64_t, std::int64_t>> blocks;
  for (auto& s : blocked)
    if (s.block_rows) blocks.insert({s.block_rows, s.block_columns});
  CHECK(blocks == std::set<std::pair<std::int64_t, std::int64_t>>{{4, 8}, {4, 16}, {8, 8}, {8, 16}});
  for (auto& s : blocked) CHECK((s.block_rows == 0 || s.parallel_loops == 0));
}

TEST_CASE("laws over random shapes: defaults are points, points keep the emitters' constraints") {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    const kernel_shape k = random_shape(rng);
    INFO("seed " << seed << ", traversal rank " << k.traversal.size() << ", widest lanes " << k.widest_lanes);
    const auto host = host_space(k);
    const auto cuda = cuda_space(k);
    CHECK(std::find(host.begin(), host.end(), host_default(k)) != host.end());
    CHECK(std::find(cuda.begin(), cuda.end(), cuda_default(k)) != cuda.end());
    CHECK(std::set<host_schedule>(host.begin(), host.end()).size() == host.size());
    CHECK(std::set<cuda_schedule>(cuda.begin(), cuda.end()).size() == cuda.size());
    const std::size_t n = k.traversal.size();
    for (auto& s : host) {
      if (n > 0) CHECK(k.traversal.back() % s.lanes == 0);
      CHECK((n <= 1 ? s.parallel_loops <= n : s.parallel_loops < n));
      if (s.chunk) CHECK(s.chunk < shared_iterations(k, s.parallel_loops));
      if (s.block_rows) {
        CHECK(s.parallel_loops + 2 <= n);
        CHECK(s.block_rows < k.traversal[n - 2]);
        CHECK(s.block_columns < k.traversal[n - 1]);
        CHECK(s.block_columns % s.lanes == 0);
      }
    }
    for (auto& s : cuda) {
      if (s.int_index) CHECK(k.int_indices);
      if (s.tile_rows == 0) {
        if (n > 0) CHECK(k.traversal.back() % s.lanes == 0);
        continue;
      }
      REQUIRE(k.staged_y);
      CHECK((32 * s.tile_rows) % s.threads == 0);
      CHECK((s.tile_rows == 8 || s.tile_rows < 2 * k.traversal[*k.staged_y]));
    }
  }
}

}  // namespace space_test
