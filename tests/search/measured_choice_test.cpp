// Measurement decides where the roofline explored: each subprogram keeps its finalists, priced again
// under a measuring model, which chooses otherwise than the roofline where the two disagree; and
// a chosen plan that does not run faster than the program as written gives way to it.
#include "program_family.hpp"
#include "rediscover_support.hpp"

#include "ein/codegen/backend.hpp"
#include "ein/cost/measured.hpp"
#include "ein/derive/all.hpp"
#include "ein/search/program/finalists.hpp"
#include "ein/search/program/never_worse.hpp"

namespace measured_choice_test {

using namespace search_test;
using ein::cost::workload;

// A host build with CBLAS and oneDNN.
const ein::plan::capabilities& host_build() {
  static const auto c = ein::codegen::capabilities_of(ein::codegen::backend::host, true, false, true);
  return c;
}

// host_assumed.json's host, but for oneDNN's convolutions at a thousandth of peak: a roofline that
// prices every derived plan of a convolution below the convolution itself.
const cost::roofline& slow_onednn() {
  static const cost::roofline m(cost::read_profile_text(R"({
    "name": "host, oneDNN priced slow", "source": "a test's assumption",
    "fp32_tflops": 1, "tf32_tflops": 1, "dram_gbytes_per_s": 50, "launch_us": 0,
    "eoperator_bandwidth_fraction": 0.5, "eoperator_compute_fraction": 0.05,
    "gemm_batch_as_calls": true,
    "library_efficiency": {"default": [[1e3, 0.5]], "conv2d": [[1e3, 0.001]], "elementwise": [[1e3, 1.0]]}})"));
  return m;
}

// A measurement that disagrees with slow_onednn(): a convolution takes 0.1 ms, any other kernel 1 ms.
class convolutions_fast final : public cost::timer {
 public:
  std::optional<double> seconds(const workload& w) override {
    ++asked;
    return w.kind == workload::engine::library && w.op == match::op_kind::conv2d ? 1e-4 : 1e-3;
  }
  std::string device() const override { return "test machine"; }
  int asked = 0;
};

ir::program conv_program() {
  ir::program p;
  p.name = "conv";
  p.tensors = {input("A", {1, 14, 14, 64}), weight("K", {3, 3, 64, 64})};
  p.definitions = {{"y", conv_nhwc(1, 14, 64, 64, 3, 3, 1, 1, 1, 1), ir::dtype::f32}};
  p.outputs = {"y"};
  return p;
}

search::optimized_program searched(const ir::program& p) {
  search::options o;
  o.explore_depth = 2;
  return search::optimize_program(p, derive::intra_rules(), slow_onednn(), o, {}, host_build());
}

TEST_CASE("finalists: the plan as written and the cheapest of each shape, then the cheapest others") {
  auto r = searched(conv_program());
  auto& s = r.subprograms.at(0);
  const std::size_t before = s.result.candidates.size();
  REQUIRE(before > 8);
  auto [t, admitted] = search::detail::admit(s.result, slow_onednn(), host_build());
  std::set<std::string> shapes;
  for (std::size_t i = 1; i < before; ++i)
    if (admitted[i]) shapes.insert(s.result.candidates[i].p.shape());
  search::keep_finalists(r, slow_onednn(), host_build(), 4);
  auto& kept = s.result.candidates;
  CHECK(kept.size() == 5);
  CHECK(kept.front().target == "as written");
  std::set<std::string> kept_shapes;
  for (std::size_t i = 1; i < kept.size(); ++i) kept_shapes.insert(kept[i].p.shape());
  CHECK(kept_shapes.size() == std::min<std::size_t>(shapes.size(), 4));
  // each kept one still computes the subprogram
  for (auto& c : kept) CHECK(plan_equals_source(c.p, s.source));
}

TEST_CASE("measured: the roofline and a measurement disagree, and the measured model takes the faster plan") {
  auto p = conv_program();
  auto r = searched(p);
  // the roofline takes a derived plan: it prices oneDNN's convolution far above its matmuls
  REQUIRE(r.subprograms.at(0).result.chosen != 0);
  search::keep_finalists(r, slow_onednn(), host_build(), 6);
  cost::measurement_cache cache;
  convolutions_fast timer;
  cost::measured m(cache, &timer, slow_onednn());
  auto priced = r;
  search::reprice(priced, m);
  auto chosen = search::for_backend(std::move(priced), m, host_build());
  CHECK(timer.asked > 0);
  // measured, the convolution as written is the faster
  auto& s = chosen.subprograms.at(0);
  CHECK(s.result.chosen == 0);
  CHECK(s.result.best.shape() == "conv2d");
  CHECK(s.seconds_as_run == doctest::Approx(1e-4));
  CHECK(chosen.model.find("measured (test machine") == 0);
  check_same_outputs(p, chosen.program);
}

TEST_CASE("never worse, measured: a chosen plan not faster than the program as written gives way to it") {
  auto p = conv_program();
  auto chosen_derived = searched(p);
  REQUIRE(chosen_derived.subprograms.at(0).result.chosen != 0);
  const auto derived_definitions = chosen_derived.program.definitions.size();
  REQUIRE(derived_definitions > 1);
  std::vector<std::pair<ir::program, ir::program>> asked;
  auto times = [&](double chosen, double written) -> search::pair_timer {
    return [&asked, chosen, written](const std::vector<std::pair<ir::program, ir::program>>& pairs) {
      asked = pairs;
      return std::vector<std::pair<double, double>>(pairs.size(), {chosen, written});
    };
  };
  SUBCASE("faster: kept") {
    auto r = chosen_derived;
    search::keep_never_worse(r, slow_onednn(), host_build(), times(1e-3, 2e-3));
    REQUIRE(asked.size() == 1);
    auto& s = r.subprograms.at(0);
    REQUIRE(s.checked);
    CHECK(!s.checked->replaced);
    CHECK(s.result.chosen != 0);
    CHECK(r.program.definitions.size() == derived_definitions);
    CHECK(r.report().find("measured on this machine: chosen 1.0000 ms, as written 2.0000 ms: kept") != std::string::npos);
  }
  SUBCASE("as fast: replaced by the program as written") {
    auto r = chosen_derived;
    search::keep_never_worse(r, slow_onednn(), host_build(), times(2e-3, 2e-3));
    auto& s = r.subprograms.at(0);
    REQUIRE(s.checked);
    CHECK(s.checked->replaced);
    CHECK(s.result.chosen == 0);
    CHECK(r.program.definitions.size() == 1);
    CHECK(r.priced.at("y"));
    CHECK(r.priced.at("y")->kind == match::op_kind::conv2d);
    CHECK(r.report().find("replaced by the plan as written, not faster") != std::string::npos);
    check_same_outputs(p, r.program);
    // the plan binds the instance the model priced
    auto plan = search::make_plan(r, host_build());
    REQUIRE(plan.kernels.size() == 1);
    REQUIRE(plan.kernels[0].call);
    CHECK(plan.kernels[0].call->library == ein::plan::onednn);
  }
  // the programs timed: each runs one plan of the subprogram alone, and computes it
  REQUIRE(asked.size() == 1);
  for (auto* q : {&asked[0].first, &asked[0].second}) {
    CAPTURE(ir::to_string(*q));
    ir::verify(*q);
    check_same_outputs(p, *q);
  }
  CHECK(asked[0].second.definitions.size() == 1);
}

TEST_CASE("subprogram_program: each subprogram's plans run alone compute it, over a generated family") {
  search::options o;
  o.explore_depth = 1;
  o.converge_depth = 3;
  std::size_t checked = 0;
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    auto src = program_family::chain(seed);
    CAPTURE(ir::to_string(src));
    auto r = search::optimize_program(src, derive::intra_rules(), slow_loops(), o, {}, program_family::host_blas());
    auto env = eval::random_inputs(src, seed);
    // what each subprogram computes, in the program: its source's definitions evaluated in order
    ir::program sources;
    sources.tensors = src.tensors;
    for (auto& s : r.subprograms) sources.definitions.push_back({s.name, s.source, s.type});
    auto values = eval::evaluate(sources, env);
    for (std::size_t i = 0; i < r.subprograms.size(); ++i) {
      auto& s = r.subprograms[i];
      CAPTURE(s.name);
      for (auto* plan : {&s.result.best, &s.result.baseline}) {
        auto alone = search::subprogram_program(r, i, *plan);
        ir::verify(alone);
        eval::bindings inputs;
        for (auto& t : alone.tensors) inputs[t.name] = values.at(t.name);
        auto got = eval::evaluate(alone, inputs);
        CHECK(eval::max_rel_error(got.at(s.name), values.at(s.name)) < 1e-9);
        ++checked;
      }
    }
  }
  CHECK(checked > 40);
}

}  // namespace measured_choice_test
