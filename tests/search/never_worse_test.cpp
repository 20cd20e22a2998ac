// The program level is never worse than the program as written: over a generated family of
// programs, the chosen program's predicted time as a build runs it (host with BLAS, and a
// PLAN_FOR cuda build) is never above the program as written priced the same way, and the plan as
// written is every subprogram's first candidate; the report prices its baseline as the build runs
// it; and ops::conv_transpose2d at stride 2 is searched into ConvTranspose (cuDNN's backward data).
#include <algorithm>

#include "program_family.hpp"
#include "rediscover_support.hpp"

#include "ein/codegen/backend.hpp"
#include "ein/derive/all.hpp"
#include "ein/front.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace never_worse_test {

namespace infogan {
using namespace ein;
// InfoGAN's second generator layer (docs/paper_cases.md) at batch 4: 448 → 256 channels, 4×4,
// stride 2, padding 1.
inline constexpr input<"X", float, 4, 2, 2, 448> X;
inline constexpr weight<"K", float, 4, 4, 256, 448> K;
inline constexpr auto net = program(ops::conv_transpose2d<"y", ops::nhwc, 2, 1>(X, K));
}  // namespace infogan

using namespace search_test;
using program_family::cuda_build;
using program_family::host_blas;

namespace {

// `v` to a relative 1e-9 (doctest::Approx's default scale of 1 would pass any two times in
// seconds).
doctest::Approx same(double v) { return doctest::Approx(v).epsilon(1e-9).scale(0); }

}  // namespace

TEST_CASE("never worse than as written: a generated family of chains, for a host build and PLAN_FOR cuda") {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 3;
  std::size_t cheaper = 0, checked = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    auto src = program_family::chain(seed);
    CAPTURE(ir::to_string(src));
    auto host = search::optimize_program(src, derive::intra_rules(), h100(), o, {}, host_blas());
    auto cuda = search::for_backend(host, h100(), cuda_build());
    for (auto* r : {&host, &cuda}) {
      auto& caps = r == &host ? host_blas() : cuda_build();
      CAPTURE(caps.str());
      // the program as written and the chosen one, each definition priced as the build runs it
      double written = search::program_seconds(src, h100(), caps);
      double chosen = search::program_seconds(r->program, h100(), caps);
      CAPTURE(r->report());
      CHECK(chosen <= written * (1 + 1e-9));
      cheaper += chosen < written * (1 - 1e-3);
      for (auto& s : r->subprograms) {
        CAPTURE(s.name);
        REQUIRE(!s.result.candidates.empty());
        // the plan as written comes first, its weights perhaps read through packed copies
        auto& written_candidate = s.result.candidates.front();
        CHECK(written_candidate.target == "as written");
        CHECK(std::all_of(written_candidate.steps.begin(), written_candidate.steps.end(),
                          [](const derive::step& d) { return d.rule == "pack_weight_operands"; }));
        CHECK(ir::canonical_string(*s.result.baseline.expr) == ir::canonical_string(*s.source));
        CHECK(s.baseline_as_run == same(search::seconds_as_run(search::instantiate(s.source, h100()), h100(), caps)));
        CHECK(s.seconds_as_run <= s.baseline_as_run);
      }
      check_same_outputs(src, r->program, {seed});
      ++checked;
    }
  }
  MESSAGE(checked << " plans checked, " << cheaper << " predicted cheaper than as written");
  CHECK(cheaper >= 8);
}

TEST_CASE("the report's baseline is priced as the build runs it: a library call the host build cannot make") {
  // y = X · W with W read at [k·40 + j], j < 48: rows of 48 elements 40 apart overlap, which BLAS
  // refuses (ldb < n); the model alone prices the plan as written as a library call.
  auto X = search_test::input("X", {64, 48});
  auto W = search_test::weight("W", {48 * 40});
  auto y = make_scope({{"i", 0, 64}, {"j", 0, 48}}, {{"k", 0, 48}},
                      make_access(X, {idx("i"), idx("k")}) * make_access(W, {idx("k") * 40 + idx("j")}));
  ir::program src{"refused", {X, W}, {{"y", y, dtype::f32}}, {"y"}};
  search::options as_written;
  as_written.explore_depth = 0;
  as_written.converge = false;
  auto r = search::optimize_program(src, {}, h100(), as_written, {}, host_blas());
  MESSAGE(r.report());
  REQUIRE(r.subprograms.size() == 1);
  auto& s = r.subprograms[0];
  auto& written = s.result.baseline.kernels.back();
  REQUIRE(written.library());
  CHECK(!host_blas().calls(*written.op));
  // the build runs it as an eOperator, and the report, the plan and the invariant say so
  double as_eoperator = search::eoperator_seconds(*y, h100());
  CHECK(s.baseline_as_run == same(as_eoperator));
  CHECK(s.baseline_as_run != same(s.result.baseline.seconds));
  CHECK(r.report().find("baseline " + s.result.baseline.shape() + " " + search::expression_plan::ms_text(as_eoperator) + " ms") !=
        std::string::npos);
  // one price per kernel, the one the build runs: the kernel line and the total of the chosen
  // plan price the refused matmul as the eOperator it runs as, never as the library call
  auto& k = s.result.best.kernels.back();
  REQUIRE(k.library());
  CHECK(k.seconds != same(as_eoperator));
  auto report = r.report();
  CHECK(report.find("(" + k.name + "): " + k.what() + "  " + search::expression_plan::ms_text(as_eoperator) + " ms\n") !=
        std::string::npos);
  CHECK(report.find("total " + search::expression_plan::ms_text(as_eoperator) + " ms\n") != std::string::npos);
  CHECK(report.find(" " + search::expression_plan::ms_text(k.seconds) + " ms\n") == std::string::npos);
  auto p = search::make_plan(r, host_blas());
  REQUIRE(p.derivations.size() == 1);
  CHECK(p.derivations[0].baseline_seconds == same(as_eoperator));
  CHECK(p.derivations[0].seconds <= p.derivations[0].baseline_seconds);
  CHECK(search::program_seconds(src, h100(), host_blas()) == same(as_eoperator));
  CHECK(search::program_seconds(src, h100()) == same(s.result.baseline.seconds));
}

TEST_CASE("ops::conv_transpose2d at stride 2 is searched into ConvTranspose, which a cuda build prices as it runs") {
  auto src = reify(infogan::net, "infogan");
  search::options o;
  o.explore_depth = 2;
  o.converge_depth = 1;
  auto r = search::optimize_program(src, derive::intra_rules(), h100(), o, {}, cuda_build());
  MESSAGE(r.report());
  REQUIRE(r.subprograms.size() == 1);
  auto& s = r.subprograms[0];
  CHECK(s.result.baseline.shape() == "eOperator");  // the scatter, as written, matches nothing
  // candidates reached through substitute_quotient hold a matched ConvTranspose; on NHWC data
  // cuDNN's legacy backward data refuses it (plan::cudnn_accepts), so a cuda build prices it as
  // the eOperator it runs as, and the choice is never above the scatter as written
  std::size_t conv_transpose_plans = 0;
  for (auto& c : s.result.candidates) {
    bool quotient = false, conv_transpose = false;
    for (auto& step : c.steps) quotient = quotient || step.rule == "substitute_quotient";
    for (auto& k : c.p.kernels) {
      if (k.weight_only || !k.library() || k.op->kind != match::op_kind::conv_transpose2d) continue;
      conv_transpose = true;
      CHECK(!cuda_build().library_for(*k.op));
    }
    if (!quotient || !conv_transpose) continue;
    CAPTURE(c.p.str());
    CHECK(s.seconds_as_run <= search::seconds_as_run(c.p, h100(), cuda_build()));
    if (conv_transpose_plans++ == 0) CHECK(plan_equals_source(c.p, s.source));
  }
  CHECK(conv_transpose_plans >= 1);
  CHECK(s.seconds_as_run <= s.baseline_as_run);
  check_same_outputs(src, r.program, {3});
}

}  // namespace never_worse_test
