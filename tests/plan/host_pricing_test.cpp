// How the shipped host profile prices a strided 1×1 convolution, which the search matches both
// as a convolution and as a batch of matrix products (one per output row): a host build with
// oneDNN runs it as one oneDNN call, because CBLAS runs the batch as one small product per row
// and the plan binds the instance the search priced.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>

#include "ein/codegen/backend.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/all.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "support/evaluate.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "plan/conv_programs.hpp"

namespace host_pricing_test {

using namespace ein;
namespace {

cost::device_profile host_profile() {
  return cost::load_profile(std::string(EIN_PROFILE_DIR) + "/host.json");
}

// The plan the search makes for `src` under `model` for a host build with CBLAS and oneDNN, its
// calls the instances the search priced.
plan::program_plan searched_plan(const ir::program& src, const cost::model& model) {
  auto caps = codegen::capabilities_of(codegen::backend::host, true, false, true);
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  return search::make_plan(search::optimize_program(src, derive::intra_rules(), model, o, {}, caps), caps);
}

// The library operators of `p` in kernel order, "-" for an eOperator, separated by spaces.
std::string calls(const plan::program_plan& p) {
  std::string r;
  for (auto& k : p.kernels) r += (r.empty() ? "" : " ") + std::string(k.call ? match::name(k.call->op.kind) : "-");
  return r;
}

// The largest relative difference of `p`'s output `y`, its kernels evaluated in order by the
// interpreter, from `src`'s, on random inputs.
double plan_error(const plan::program_plan& p, const ir::program& src) {
  auto values = eval::random_inputs(src, 7);
  auto want = eval::evaluate(src, values);
  return eval::max_rel_error(plan::evaluate(p, values).at("y"), want.at("y"));
}

}  // namespace

TEST_CASE("host pricing: a batch of b CBLAS products costs b products of its FLOPs / b each, never less than one") {
  auto profile = host_profile();
  REQUIRE(profile.gemm_batch_as_calls);
  const cost::roofline host(profile);
  profile.gemm_batch_as_calls = false;
  const cost::roofline gpu_like(profile);
  std::mt19937 g(3);
  for (int trial = 0; trial < 16; ++trial) {
    const std::int64_t b = 2 + g() % 60, m = 1 + g() % 100, n = 8 + g() % 600, k = 8 + g() % 600;
    CAPTURE(b);
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    const double flops = 2.0 * b * m * n * k, bytes = 4.0 * (b * m * k + n * k + b * m * n);
    cost::workload batch{cost::workload::engine::library, match::op_kind::batch_matmul, flops, bytes};
    batch.batch = b, batch.rows = m, batch.cols = n;
    auto one = batch, whole = batch;
    one.flops /= double(b), one.bytes /= double(b), one.batch = whole.batch = 1;
    CHECK(host.seconds(batch) == doctest::Approx(std::max(double(b) * host.seconds(one), host.seconds(whole))));
    // a profile without it prices the batch as one call of all its FLOPs, as cuBLAS runs it
    CHECK(gpu_like.seconds(batch) == doctest::Approx(host.seconds(whole)));
  }
  // ResNet-50's 1×1 stride 2 as 28 products of 28 × 256 · 256 × 512: dearer than one product
  cost::workload rows{cost::workload::engine::library, match::op_kind::batch_matmul, 2.0 * 28 * 28 * 512 * 256, 0};
  rows.batch = 28, rows.rows = 28, rows.cols = 512;
  CHECK(host.seconds(rows) > 1.1 * gpu_like.seconds(rows));
}

TEST_CASE("host pricing: ResNet-50's strided 1×1 convolutions run as one oneDNN call, not as a CBLAS product per row") {
  const cost::roofline host(host_profile());
  // the three downsampling layers at batch 1, the first at batch 2 too (there the later ones'
  // products are large enough that the profile prices their batch as the convolution: a tie)
  for (auto [n, hw, c, f] : {std::array<std::int64_t, 4>{1, 56, 256, 512}, {2, 56, 256, 512}, {1, 28, 512, 1024},
                             {1, 14, 1024, 2048}}) {
    CAPTURE(n);
    CAPTURE(hw);
    CHECK(calls(searched_plan(plan_test::strided_1x1(n, hw, c, f), host)) == "conv2d");
  }
  // taken as written, bound by library order, the batch of products that CBLAS, the first, runs
  auto caps = codegen::capabilities_of(codegen::backend::host, true, false, true);
  CHECK(calls(plan::make_plan(plan_test::strided_1x1(1, 56, 256, 512), caps)) == "matmul");
  // and the searched plan computes the convolution
  auto small = plan_test::strided_1x1(2, 16, 64, 128);
  CHECK(plan_error(searched_plan(small, host), small) < 1e-9);
}

}  // namespace host_pricing_test
