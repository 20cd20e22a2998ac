// Rediscovering the paper's transformations from the plain expressions with the H100 roofline
// model: the plan structure among the candidates, the choice, and values against the interpreter.
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/search/optimize.hpp"

namespace rediscover_test {

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

// The first candidate that copies operands (eOperators), runs one G2BMM of dilation 1 and copies
// its output back (an eOperator), in that order.
const search::candidate_plan* undilated_g2bmm(const search::optimized& r) {
  for (auto& c : r.candidates) {
    std::vector<const search::priced_kernel*> run;
    for (auto& k : c.p.kernels)
      if (!k.weight_only) run.push_back(&k);
    std::size_t lib = 0, libs = 0;
    for (std::size_t i = 0; i < run.size(); ++i)
      if (run[i]->library()) lib = i, ++libs;
    if (libs != 1 || lib == 0 || lib + 1 >= run.size()) continue;
    auto& op = *run[lib]->op;
    if (op.kind == match::op_kind::g2bmm && op.band().dilation == 1) return &c;
  }
  return nullptr;
}

// The first candidate that copies its input (an eOperator without summation) and then runs one
// Matmul reading the copy with the given K, last (im2col + Matmul).
const search::candidate_plan* im2col_matmul(const search::optimized& r, std::int64_t k) {
  for (auto& c : r.candidates) {
    if (!has_shape(c.p, "eOperator + matmul")) continue;
    auto& last = c.p.kernels.back();
    if (!last.library() || last.op->gemm().k != k || last.reads.empty()) continue;
    bool copies = false;
    for (auto i : last.reads)
      copies = copies || (!c.p.kernels[i].weight_only && c.p.kernels[i].flat->summation.empty());
    if (copies) return &c;
  }
  return nullptr;
}

std::string kinds_of(const search::optimized& r) {
  std::string s;
  for (auto& c : r.candidates) s += "\n  " + c.p.shape() + "  " + search::expression_plan::ms_text(c.p.seconds) + " ms (" + c.target + ")";
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
}

TEST_CASE("rediscover Conv3x3 at full size (ResNet-18: [1,7,7,512], 512 filters, padding 1)") {
  auto src = conv(7, 512, 512, 3, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE(r.report());
  auto* mm = find_shape(r, "matmul + eOperator");
  REQUIRE(mm);
  MESSAGE("Matmul + OffsetReduce (" << mm->target << "):\n" << mm->p.str());
  MESSAGE("chosen " << r.best.shape() << " " << search::expression_plan::ms_text(r.best.seconds)
                    << " ms; Matmul + OffsetReduce " << search::expression_plan::ms_text(mm->p.seconds)
                    << " ms; baseline " << r.baseline.shape() << " "
                    << search::expression_plan::ms_text(r.baseline.seconds) << " ms");
  // the paper's plan beats the cuDNN call as written at this size (a regression of a rule or of
  // the choice loses it)
  CHECK(r.best.seconds < r.baseline.seconds);
  CHECK(r.best.seconds <= mm->p.seconds);
  // the paper's choice: Matmul (M = 49, N = 9·512, K = 512) then the OffsetReduce eOperator. The
  // im2col alternative (a copy, then M = 49, N = 512, K = 4608) is found too and costs the same
  // FLOPs and bytes, but its 8 output tiles of 64 × 64 keep 8 of 132 SMs busy where the
  // Matmul's 72 keep 72 (the roofline's occupancy term).
  CHECK(r.best.shape() == "matmul + eOperator");
  CHECK(!r.best.kernels.back().flat->summation.empty());
  // im2col + Matmul is the Matmul bridge of the expression as written (converging derivation
  // reaches it at distance 0); post-optimization fuses its relayout back into the Conv2d as
  // written, so it is priced here as derived
  const match::operator_def* matmul = nullptr;
  for (auto& op : match::operator_table())
    if (op.kind == match::op_kind::matmul) matmul = &op;
  auto br = match::bridges(*src, *matmul);
  REQUIRE(br.size() == 1);
  search::optimized as_derived;
  as_derived.candidates.push_back({search::instantiate(br[0].result, h100()), "matmul", {}});
  auto* im2col = im2col_matmul(as_derived, 3 * 3 * 512);
  REQUIRE(im2col);
  MESSAGE("im2col + Matmul:\n" << im2col->p.str());
  CHECK(im2col->p.seconds > r.best.seconds);
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

TEST_CASE("dilated G2BMM (Figure 14): relayouts + a non-dilated G2BMM + a relayout back, exact") {
  // The split i = D·q + p (substitute_variable) reads A[b, p + D·q, k] and
  // B[b, p + D·q + D·w − D·W, k]; the G2BMM bridge copies them into A'[b, p, q, k] and
  // B'[b, p, y, k] = B[b, p + D·y, k], where the band q + w − W is not dilated, and the output
  // is copied back from [b, p, q, w] to [b, i, w].
  for (std::int64_t d : {2, 4}) {
    INFO("dilation " << d);
    auto small = g2bmm(2, 40, 8, 4, d);
    auto r = search::optimize(small, derive::intra_rules(), h100());
    MESSAGE(r.report());
    auto* c = undilated_g2bmm(r);
    REQUIRE(c);
    MESSAGE("relayouts + G2BMM + relayout:\n" << c->p.str());
    for (auto& s : c->steps) MESSAGE("  " << s);
    for (auto& cand : r.candidates) {
      INFO(cand.p.str());
      CHECK(plan_equals_source(cand.p, small));
    }
    auto full = search::optimize(g2bmm(8, 10000, 64, 1000, d), derive::intra_rules(), h100());
    MESSAGE(full.report());
    CHECK(full.baseline.shape() == "g2bmm");
    CHECK(full.best.seconds <= full.baseline.seconds);
    auto* f = undilated_g2bmm(full);
    REQUIRE(f);
    MESSAGE("full size, relayouts + G2BMM + relayout:\n" << f->p.str());
  }
}

}  // namespace rediscover_test
