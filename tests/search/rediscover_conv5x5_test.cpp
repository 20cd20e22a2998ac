// Rediscovering EinNet Figure 6 from the plain Conv5x5: a Conv3x3 with four times the output
// channels over a relaid-out 6×6 kernel, and an eOperator summing its outputs at offsets.
#include "rediscover_support.hpp"

#include <chrono>

#include "ein/derive/all.hpp"
#include "ein/search/optimize.hpp"

namespace rediscover_conv5x5_test {

using namespace search_test;
// `ein` has these names too (the front end's input, weight and program), seen where another file of
// the unity batch includes the front end: these are the ones meant here
using search_test::input;
using search_test::weight;
using ein::ir::program;

namespace {

// Conv k×k NHWC with a batch: L_{n,h,w,f} Σ_{r,s,c} A[n, h + r − pad, w + s − pad, c]·K[r, s, f, c]
scope_ptr batched_conv(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k,
                       std::int64_t pad) {
  std::int64_t out = hw + 2 * pad - k + 1;
  return make_scope({{"n", 0, n}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                    {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(input("A", {n, hw, hw, c}),
                                {idx("n"), idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                        make_access(weight("K", {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

// The conv2d kernel of `p` that runs at run time, when it is the only library operator.
const match::conv_attrs* run_time_conv(const search::expression_plan& p) {
  const match::conv_attrs* found = nullptr;
  for (auto& k : p.kernels) {
    if (k.weight_only || !k.op) continue;
    if (k.op->kind != match::op_kind::conv2d || found) return nullptr;
    found = &k.op->conv();
  }
  return found;
}

// Figure 6: "conv2d + eOperator" whose conv2d has a 3×3 kernel, `dilation` and 4·f output
// channels, the eOperator summing (a reduction over the quadrupled channels).
bool figure6(const search::expression_plan& p, std::int64_t f, std::int64_t dilation) {
  if (!has_shape(p, "conv2d + eOperator") || p.kernels.back().flat->summation.empty()) return false;
  auto* a = run_time_conv(p);
  return a && a->r == 3 && a->s == 3 && a->k == 4 * f && a->dilation_h == dilation &&
         a->dilation_w == dilation;
}

const search::candidate_plan* find_figure6(const search::optimized& r, std::int64_t f, std::int64_t dilation) {
  for (auto& c : r.candidates)
    if (figure6(c.p, f, dilation)) return &c;
  return nullptr;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("rediscover Figure 6 at reduced size: Conv5x5 → Conv3x3 with 4× output channels + eOperator") {
  auto src = conv(8, 4, 4, 5, 2);  // [1,8,8,4], 4 filters
  auto start = std::chrono::steady_clock::now();
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE("search " << seconds_since(start) << " s\n" << r.report());
  auto* plain = find_figure6(r, 4, 1);
  REQUIRE(plain);
  MESSAGE("Conv3x3 ×4 channels + eOperator:\n" << plain->p.str());
  for (auto& s : plain->steps) MESSAGE("  " << s);
  CHECK(plan_equals_source(plain->p, src));
  // the split by two instead of three: a dilated Conv3x3 (r = 2·r1 + r2)
  auto* dilated = find_figure6(r, 4, 2);
  REQUIRE(dilated);
  CHECK(plan_equals_source(dilated->p, src));
  CHECK(plan_equals_source(r.best, src));
  for (auto& c : r.candidates)
    if (c.p.shape().find("conv2d") != std::string::npos) {
      INFO(c.p.str());
      CHECK(plan_equals_source(c.p, src));
    }
}

TEST_CASE("rediscover Figure 6 at another reduced size: batch 2, 7×7, 3 channels, 2 filters") {
  auto src = batched_conv(2, 7, 3, 2, 5, 2);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  auto* plain = find_figure6(r, 2, 1);
  REQUIRE(plain);
  CHECK(plan_equals_source(plain->p, src));
}

// Chosen under the H100 model because cuDNN runs the 3×3 convolution with Winograd (the
// profile's F(2×2,3×3) fraction); without that term the direct Conv5x5 is cheaper.
TEST_CASE("rediscover Figure 6 at full size ([16,224,224,32] NHWC, 32 filters, padding 2): chosen") {
  auto src = batched_conv(16, 224, 32, 32, 5, 2);
  auto start = std::chrono::steady_clock::now();
  auto r = search::optimize(src, derive::intra_rules(), h100());
  MESSAGE("search " << seconds_since(start) << " s\n" << r.report());
  auto* plain = find_figure6(r, 32, 1);
  REQUIRE(plain);
  MESSAGE("Conv3x3 ×4 channels + eOperator (" << plain->target << "):\n" << plain->p.str());
  auto* a = run_time_conv(plain->p);
  CHECK(a->n == 16);
  CHECK(a->c == 32);
  CHECK(figure6(r.best, 32, 1));
  CHECK(r.best.seconds < r.baseline.seconds);
  auto without = h100().profile();
  without.winograd_3x3_flop_fraction = 1;
  cost::roofline no_winograd(without);
  CHECK(search::instantiate(r.best.expr, no_winograd).seconds > search::instantiate(src, no_winograd).seconds);
}

}  // namespace rediscover_conv5x5_test
