// A searched plan binds the instance its search priced, whatever order the build's libraries
// come in: strided 1×1 convolutions under cost models that favour one of their two instances,
// each bound call run by its reference executor against the interpreter; a build that does not
// call the cheapest instance calls the next; and make_plan given a priced instance its build
// cannot call.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "ein/codegen/backend.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/all.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/match/reference.hpp"
#include "support/evaluate.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "plan/conv_programs.hpp"

namespace priced_binding_test {

using namespace ein;

namespace {

// The host profile's roofline, with library calls of one operator four times faster: the
// search then prices that operator's instance cheapest wherever a kernel matches it.
class favouring final : public cost::model {
 public:
  explicit favouring(match::op_kind favoured)
      : base_(cost::load_profile(std::string(EIN_PROFILE_DIR) + "/host.json")), favoured_(favoured) {}
  double seconds(const cost::workload& w) const override {
    const bool cheap = w.kind == cost::workload::engine::library && w.op == favoured_;
    return base_.seconds(w) * (cheap ? 0.25 : 1.0);
  }
  std::string describe() const override { return "host roofline favouring " + std::string(match::name(favoured_)); }

 private:
  cost::roofline base_;
  match::op_kind favoured_;
};

// A host build calling CBLAS, then oneDNN: library order alone binds a GEMM before a convolution.
plan::capabilities blas_then_onednn() { return codegen::capabilities_of(codegen::backend::host, true, false, true); }

// The largest relative difference from the interpreter's of `p`'s kernels, each library call run
// by its instance's reference executor on the buffers it binds, and of the program's output `y`.
double plan_error(const plan::program_plan& p, const ir::program& src, std::uint64_t seed) {
  auto values = eval::random_inputs(src, seed);
  auto want = eval::evaluate(src, values);
  double worst = 0;
  for (auto& k : p.kernels) {
    auto value = eval::evaluate(*k.value, values);
    if (k.call) {
      std::vector<const double*> in;
      for (auto id : k.call->inputs) in.push_back(values.at(p.buffers[id].name).data.data());
      std::vector<double> out(value.data.size(), 1e300);
      match::execute(k.call->op, in, out.data());
      worst = std::max(worst, eval::max_rel_error(std::span<const double>(out), value));
      if (k.call->epilogue) plan::apply_epilogue(value, *k.call->epilogue, p, values);
    }
    values[p.buffers[k.target].name] = value;
  }
  return std::max(worst, eval::max_rel_error(values.at("y"), want.at("y")));
}

// The instance of `src`'s only definition of operator `kind`.
match::instance instance_of(const ir::program& src, match::op_kind kind) {
  for (auto& i : match::match(*src.definitions.front().value))
    if (i.kind == kind) return i;
  throw internal_error("no instance of " + std::string(match::name(kind)));
}

}  // namespace

TEST_CASE("priced binding: a searched plan calls the instance the search priced, not the first its libraries run") {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  const auto caps = blas_then_onednn();
  std::mt19937_64 g(11);
  std::size_t bound = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const std::int64_t n = 1 + g() % 2, hw = 2 * (8 + g() % 8), c = 64 * (1 + g() % 4), f = 64 * (1 + g() % 4);
    auto src = plan_test::strided_1x1(n, hw, c, f);
    CAPTURE(ir::to_string(src));
    for (auto favoured : {match::op_kind::conv2d, match::op_kind::matmul}) {
      CAPTURE(std::string(match::name(favoured)));
      const favouring model(favoured);
      auto r = search::optimize_program(src, derive::intra_rules(), model, o, {}, caps);
      auto p = search::make_plan(r, caps);
      REQUIRE(p.kernels.size() == 1);
      auto& k = p.kernels.front();
      REQUIRE(k.call);
      CHECK(k.call->op.kind == favoured);
      // the call is the very instance the search priced for the definition
      REQUIRE(r.priced.at("y"));
      CHECK(k.call->op.str() == r.priced.at("y")->str());
      CHECK(r.priced_for == caps);
      CHECK(plan_error(p, src, 100 + trial) < 1e-9);
      ++bound;
    }
  }
  CHECK(bound == 12);
}

TEST_CASE("priced binding: where the build does not call the cheapest instance, it calls the next it does") {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 2;
  const auto blas_only = codegen::capabilities_of(codegen::backend::host, true, false, false);
  const favouring conv_cheapest(match::op_kind::conv2d);
  std::mt19937_64 g(23);
  for (int trial = 0; trial < 4; ++trial) {
    // a strided 1×1 convolution for a build without oneDNN: the GEMM, not an eOperator
    const std::int64_t hw = 2 * (8 + g() % 8), c = 64 * (1 + g() % 4), f = 64 * (1 + g() % 4);
    // a batch of products, a grouped convolution oneDNN refuses (its filter spans the row): the
    // batch_matmul CBLAS runs
    const std::int64_t b = 2 + g() % 4, m = 16 + g() % 32, n = 16 + g() % 32, k = 32 + g() % 32;
    for (auto& [src, caps, want] : {std::tuple{plan_test::strided_1x1(1, hw, c, f), blas_only, match::op_kind::matmul},
                                    std::tuple{plan_test::batch_of_products(b, m, n, k), blas_then_onednn(),
                                               match::op_kind::batch_matmul}}) {
      CAPTURE(ir::to_string(src));
      CAPTURE(caps.str());
      auto r = search::optimize_program(src, derive::intra_rules(), conv_cheapest, o, {}, caps);
      // the model prices the convolution cheapest, which this build does not call
      auto written = search::instantiate(src.definitions.front().value, conv_cheapest).kernels.back();
      REQUIRE(written.op);
      REQUIRE(written.op->kind == match::op_kind::conv2d);
      REQUIRE_FALSE(caps.calls(*written.op));
      REQUIRE(r.priced.at("y"));
      CHECK(r.priced.at("y")->kind == want);
      CHECK(search::kernel_seconds_as_run(written, conv_cheapest, caps) ==
            doctest::Approx(conv_cheapest.seconds(cost::workload::library(*r.priced.at("y")))).epsilon(1e-12));
      auto p = search::make_plan(r, caps);
      REQUIRE(p.kernels.size() == 1);
      REQUIRE(p.kernels.front().call);
      CHECK(p.kernels.front().call->op.str() == r.priced.at("y")->str());
      CHECK(plan_error(p, src, 200 + trial) < 1e-9);
    }
  }
}

TEST_CASE("priced binding: make_plan binds what it is given for the build it was priced for, and matches for another") {
  auto src = plan_test::strided_1x1(1, 16, 64, 64);
  const auto caps = blas_then_onednn();
  auto priced = [&](std::optional<match::instance> op, plan::capabilities priced_for) {
    plan::provenance how;
    how.priced["y"] = std::move(op);
    how.priced_for = std::move(priced_for);
    return how;
  };
  auto conv = instance_of(src, match::op_kind::conv2d), gemm = instance_of(src, match::op_kind::matmul);
  // taken as written, library order binds the GEMM
  CHECK(plan::make_plan(src, caps).kernels.front().call->op.kind == match::op_kind::matmul);
  // priced as the convolution, the convolution, on oneDNN
  auto as_conv = plan::make_plan(src, caps, priced(conv, caps)).kernels.front().call;
  REQUIRE(as_conv);
  CHECK(as_conv->library == plan::onednn);
  CHECK(as_conv->op.str() == conv.str());
  CHECK(plan_error(plan::make_plan(src, caps, priced(conv, caps)), src, 5) < 1e-9);
  // priced as an eOperator, an eOperator though CBLAS runs the GEMM
  CHECK_FALSE(plan::make_plan(src, caps, priced(std::nullopt, caps)).kernels.front().call);
  // a build the search priced that cannot call the instance it priced is a bug of ours, named
  const auto blas_only = codegen::capabilities_of(codegen::backend::host, true, false, false);
  CHECK_THROWS_WITH_AS(plan::make_plan(src, blas_only, priced(conv, blas_only)),
                       doctest::Contains("definition `y`"), internal_error);
  // for another build (PLAN_FOR), the priced instance where it runs it, else what it matches
  CHECK(plan::make_plan(src, blas_only, priced(gemm, caps)).kernels.front().call->op.str() == gemm.str());
  CHECK(plan::make_plan(src, blas_only, priced(conv, caps)).kernels.front().call->op.kind == match::op_kind::matmul);
  CHECK(plan::make_plan(src, blas_only, priced(std::nullopt, caps)).kernels.front().call->op.kind ==
        match::op_kind::matmul);
}

}  // namespace priced_binding_test
