// The occupancy term of the roofline model: library operators that leave SMs idle are slower.
#include <doctest/doctest.h>

#include "ein/cost/roofline.hpp"
#include "ein/ir/expr.hpp"
#include "ein/match/match.hpp"

namespace occupancy_test {

using namespace ein;
using namespace ein::cost;

namespace {

device_profile shipped(const char* file) { return load_profile(std::string(EIN_PROFILE_DIR) + "/" + file); }

workload gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  workload w{workload::engine::library, match::op_kind::matmul,
             2.0 * static_cast<double>(batch * m * n * k),
             4.0 * static_cast<double>(batch * (m * k + k * n + m * n))};
  w.batch = batch, w.rows = m, w.cols = n;
  return w;
}

}  // namespace

TEST_CASE("occupancy: the shipped profiles give the datasheet SM counts and an output tile") {
  auto h = shipped("h100_sxm5.json"), a = shipped("a100_sxm4_40gb.json");
  CHECK(h.sm_count == 132);
  CHECK(a.sm_count == 108);
  for (auto* p : {&h, &a}) {
    CHECK(p->tile_rows > 0);
    CHECK(p->tile_cols > 0);
    // the tile is an assumption, and the profile says so
    CHECK(p->source.find("tile") != std::string::npos);
    CHECK(p->source.find("assumption") != std::string::npos);
  }
}

TEST_CASE("occupancy: blocks over SMs, capped at one, for families of GEMM shapes") {
  roofline m(shipped("h100_sxm5.json"));
  auto& p = m.profile();
  for (std::int64_t batch : {1, 3})
    for (std::int64_t rows : {1, 49, 64, 65, 500, 4096})
      for (std::int64_t cols : {7, 64, 512, 4608}) {
        auto w = gemm(batch, rows, cols, 256);
        double tiles = static_cast<double>(batch * ((rows + p.tile_rows - 1) / p.tile_rows) *
                                           ((cols + p.tile_cols - 1) / p.tile_cols));
        INFO(batch << " x " << rows << " x " << cols);
        CHECK(m.occupancy(w) == doctest::Approx(std::min(1.0, tiles / p.sm_count)));
        CHECK(m.library_efficiency(w) <= p.curve(w.op).at(w.flops) + 1e-15);
      }
  // unknown output geometry, and eOperators: no occupancy limit
  CHECK(m.occupancy(workload{workload::engine::library, match::op_kind::matmul, 1e9, 1e6}) == 1.0);
  CHECK(m.occupancy(workload::eoperator(1e9, 1e6)) == 1.0);
  // a profile without SM count keeps the plain curve
  auto bare = p;
  bare.sm_count = 0;
  CHECK(roofline(bare).library_efficiency(gemm(1, 49, 512, 4608)) ==
        doctest::Approx(p.curve(match::op_kind::matmul).at(2.0 * 49 * 512 * 4608)));
}

TEST_CASE("occupancy: at equal FLOPs and bytes, the GEMM with fewer output tiles is slower") {
  for (auto* f : {"h100_sxm5.json", "a100_sxm4_40gb.json"}) {
    roofline m(shipped(f));
    // Conv3x3 [1,7,7,512] as Matmul + OffsetReduce (49 × 4608, K = 512) and as im2col + Matmul
    // (49 × 512, K = 4608): the same FLOPs and bytes, 72 against 8 tiles of 64 × 64
    auto wide = gemm(1, 49, 4608, 512), narrow = gemm(1, 49, 512, 4608);
    CHECK(wide.flops == narrow.flops);
    CHECK(wide.bytes == narrow.bytes);
    CHECK(m.occupancy(narrow) < m.occupancy(wide));
    CHECK(m.seconds(narrow) > 2 * m.seconds(wide));
    // transposing a GEMM changes nothing: rows and columns both count
    CHECK(m.seconds(gemm(1, 4608, 49, 512)) == doctest::Approx(m.seconds(wide)).scale(0));
    // once every SM has work, the shape no longer matters (the curve alone decides)
    auto big1 = gemm(4, 1024, 2048, 512), big2 = gemm(4, 2048, 1024, 512);
    CHECK(m.occupancy(big1) == 1.0);
    CHECK(m.seconds(big1) == doctest::Approx(m.seconds(big2)).scale(0));
  }
}

TEST_CASE("occupancy: library workloads take their output geometry from the instance") {
  using namespace ein::ir;
  auto f32 = [](std::string n, std::vector<std::int64_t> s) { return tensor{n, dtype::f32, s, tensor_role::input}; };
  // Matmul 6 × 10 (K = 4), batch matmul 3 × 5 × 7
  auto mm = make_scope({{"m", 0, 6}, {"n", 0, 10}}, {{"k", 0, 4}},
                       make_access(f32("A", {6, 4}), {idx("m"), idx("k")}) *
                           make_access(f32("B", {4, 10}), {idx("k"), idx("n")}));
  auto bmm = make_scope({{"b", 0, 3}, {"m", 0, 5}, {"n", 0, 7}}, {{"k", 0, 2}},
                        make_access(f32("A", {3, 5, 2}), {idx("b"), idx("m"), idx("k")}) *
                            make_access(f32("B", {3, 2, 7}), {idx("b"), idx("k"), idx("n")}));
  // Conv3x3 NHWC [2, 6, 6, 3], 4 filters, padding 1: an implicit GEMM of (2·6·6) × 4
  auto conv = make_scope(
      {{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 4}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 3}},
      make_access(f32("A", {2, 6, 6, 3}), {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
          make_access(f32("K", {3, 3, 4, 3}), {idx("r"), idx("s"), idx("f"), idx("c")}));
  struct expect {
    scope_ptr s;
    match::op_kind kind;
    std::int64_t batch, rows, cols;
  };
  for (auto& e : {expect{mm, match::op_kind::matmul, 1, 6, 10}, expect{bmm, match::op_kind::batch_matmul, 3, 5, 7},
                  expect{conv, match::op_kind::conv2d, 1, 72, 4}}) {
    bool seen = false;
    for (auto& i : match::match(*e.s)) {
      if (i.kind != e.kind) continue;
      seen = true;
      auto w = workload::library(i);
      INFO(i.str());
      CHECK(w.batch * w.rows * w.cols == e.batch * e.rows * e.cols);
      if (e.kind == match::op_kind::conv2d) CHECK((w.rows == e.rows && w.cols == e.cols));
      CHECK(w.flops == i.flops);
    }
    CHECK(seen);
  }
}

}  // namespace occupancy_test
