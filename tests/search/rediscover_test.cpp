// Rediscovering the paper's transformations from the plain expressions with the H100 roofline
// model: the plan structure among the candidates, the choice, and values against the interpreter.
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/search/optimize.hpp"

using namespace search_test;

namespace {

// The first candidate with the given kernel kinds, or nullptr.
const search::candidate_plan* find_shape(const search::optimized& r, const std::string& kinds) {
  for (auto& c : r.candidates)
    if (has_shape(c.p, kinds)) return &c;
  return nullptr;
}

// The first candidate that runs one GEMM and then an eOperator that sums its output.
const search::candidate_plan* gemm_then_aggregate(const search::optimized& r) {
  for (auto& c : r.candidates)
    if ((has_shape(c.p, "matmul + eOperator") || has_shape(c.p, "batch_matmul + eOperator")) &&
        !c.p.kernels.back().flat->summation.empty())
      return &c;
  return nullptr;
}

std::string kinds_of(const search::optimized& r) {
  std::string s;
  for (auto& c : r.candidates) s += "\n  " + c.p.shape() + "  " + search::plan::ms_text(c.p.seconds) + " ms (" + c.target + ")";
  return s;
}

}  // namespace

TEST_CASE("rediscover Conv3x3 at reduced size: Matmul + OffsetReduce, every candidate exact") {
  auto src = conv(5, 8, 8, 3, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE(r.report());
  MESSAGE("candidates:" << kinds_of(r));
  auto* mm = find_shape(r, "matmul + eOperator");
  REQUIRE(mm);
  MESSAGE("Matmul + OffsetReduce:\n" << mm->p.str());
  for (auto& s : mm->steps) MESSAGE("  " << s);
  CHECK(plan_equals_source(mm->p, src));
  CHECK(plan_equals_source(r.best, src));
  for (auto& c : r.candidates) {
    INFO(c.p.str());
    CHECK(plan_equals_source(c.p, src));
  }
  CHECK(r.best.seconds <= r.baseline.seconds);
}

TEST_CASE("rediscover Conv3x3 at full size (ResNet-18: [1,7,7,512], 512 filters, padding 1)") {
  auto src = conv(7, 512, 512, 3, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE(r.report());
  auto* mm = find_shape(r, "matmul + eOperator");
  REQUIRE(mm);
  MESSAGE("Matmul + OffsetReduce (" << mm->target << "):\n" << mm->p.str());
  MESSAGE("chosen " << r.best.shape() << " " << search::plan::ms_text(r.best.seconds)
                    << " ms; Matmul + OffsetReduce " << search::plan::ms_text(mm->p.seconds)
                    << " ms; baseline " << r.baseline.shape() << " "
                    << search::plan::ms_text(r.baseline.seconds) << " ms");
  CHECK(r.best.seconds <= r.baseline.seconds);
  CHECK(r.best.seconds <= mm->p.seconds);
}

TEST_CASE("rediscover ConvTranspose (InfoGAN) at reduced size: a GEMM + an eOperator aggregating its output") {
  auto src = conv_transpose(2, 2, 8, 8, 4, 2, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE(r.report());
  auto* mm = gemm_then_aggregate(r);
  REQUIRE(mm);
  MESSAGE("GEMM + aggregating eOperator:\n" << mm->p.str());
  for (auto& s : mm->steps) MESSAGE("  " << s);
  CHECK(plan_equals_source(mm->p, src));
  CHECK(plan_equals_source(r.best, src));
  for (auto& c : r.candidates) {
    INFO(c.p.str());
    CHECK(plan_equals_source(c.p, src));
  }
}

TEST_CASE("rediscover ConvTranspose at full size (InfoGAN: [16,2,2,448] → 256, 4×4, stride 2, padding 1)") {
  auto src = conv_transpose(16, 2, 448, 256, 4, 2, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE(r.report());
  auto* mm = gemm_then_aggregate(r);
  REQUIRE(mm);
  MESSAGE("GEMM + aggregating eOperator:\n" << mm->p.str());
  CHECK(r.best.seconds <= r.baseline.seconds);
}

TEST_CASE("dilated G2BMM: every candidate exact; the non-dilated form needs an iterator split") {
  // Figure 14 rewrites i as 4·i' + p to undilate the band: substitute_variable proposes that
  // split, but B is then read at 4·(i' + w − W) + p, and no rule yet introduces the relayout
  // B'[b, p, q, k] = B[b, 4q + p, k] the G2BMM matcher needs (it wants the band row at
  // coefficient 1), so the non-dilated G2BMM between relayouts is not among the candidates.
  auto small = g2bmm(2, 40, 8, 4, 4);
  auto r = search::optimize(small, derive::intra_rules(), h100());
  MESSAGE(r.report());
  for (auto& c : r.candidates) {
    INFO(c.p.str());
    CHECK(plan_equals_source(c.p, small));
  }
  auto full = search::optimize(g2bmm(8, 10000, 64, 1000, 4), derive::intra_rules(), h100());
  MESSAGE(full.report());
  CHECK(full.best.seconds <= full.baseline.seconds);
  CHECK(full.baseline.shape() == "g2bmm");
}
