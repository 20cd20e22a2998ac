// The plan as data in JSON: steps, instances, calls and derivations read back exactly from what
// the report writes, and a searched plan round-trips through its report.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ein/codegen/header.hpp"
#include "ein/codegen/report.hpp"
#include "ein/derive/all.hpp"
#include "ein/plan/json.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "plan/conv_programs.hpp"
#include "search/rediscover_support.hpp"

namespace json_test {

using namespace search_test;

namespace {

// y = relu(conv3x3(A, K)): the convolution a searched subprogram, the activation another.
ir::program conv_relu() {
  auto c = conv(7, 16, 16, 3, 1);
  auto y = make_scope(c->traversal, {}, make_unary(unary_fn::relu, make_access(c, {idx("n"), idx("h"), idx("w"), idx("f")})));
  return {"conv_relu", {input("A", {1, 7, 7, 16}), weight("K", {3, 3, 16, 16})}, {{"y", y, dtype::f32}}, {"y"}};
}

codegen::options options() {
  codegen::options o;
  o.name = "conv_relu";
  o.model_header = "model.hpp";
  o.object = "model::net";
  return o;
}

}  // namespace

TEST_CASE("plan JSON: a step of every parameter type reads back equal") {
  ir::iterator t{"t", 0, 5}, wide{"t", -1, 6};
  derive::step s{"some_rule",
                 derive::path{0, 2},
                 {{"count", std::int64_t{3}},
                  {"name", std::string("c")},
                  {"names", std::vector<std::string>{"r", "s"}},
                  {"sizes", std::vector<std::int64_t>{4608, 512}},
                  {"inline", derive::path{1}},
                  {"read at", std::vector<affine>{idx("i") + 1, idx("j").floordiv(3)}},
                  {"", std::vector<std::pair<std::string, affine>>{{"t1", idx("h") + idx("r") - 1}}},
                  {"Σ", std::vector<derive::range_change>{{t, wide}}},
                  {"over", make_access(input("K", {3}), {idx("r") * 2})}}};
  auto j = plan::to_json(s);
  CHECK(j["text"] == derive::to_string(s));
  auto back = plan::step_from_json(nlohmann::json::parse(j.dump()));
  CHECK(back == s);
  CHECK(derive::to_string(back) == derive::to_string(s));
  derive::step program_level{"fuse_expression", std::nullopt, {{"definition", std::string("a")}, {"into", std::string("b")}}};
  CHECK(plan::step_from_json(plan::to_json(program_level)) == program_level);
  // a malformed step names what is wrong
  j["parameters"][0]["type"] = "matrix";
  CHECK_THROWS_WITH_AS(plan::step_from_json(j), doctest::Contains("unknown parameter type `matrix`"), user_error);
  CHECK_THROWS_AS(plan::step_from_json(nlohmann::json{{"rule", "x"}}), user_error);
}

TEST_CASE("plan JSON: every instance of every operator of the table reads back equal") {
  for (auto& op : match::operator_table()) {
    auto s = op.canonical({});
    for (auto& i : match::match(*s)) {
      CAPTURE(i.str());
      auto back = plan::instance_from_json(nlohmann::json::parse(plan::to_json(i).dump()));
      CHECK(back.str() == i.str());
      CHECK(plan::to_json(back) == plan::to_json(i));
      CHECK(back.grid.elements() == i.grid.elements());
    }
  }
  auto j = plan::to_json(match::match(*match::operator_table()[2].canonical({})).at(0));
  j["operator"] = "winograd";
  CHECK_THROWS_WITH_AS(plan::instance_from_json(j), doctest::Contains("unknown operator `winograd`"), user_error);
  j = plan::to_json(match::match(*match::operator_table()[2].canonical({})).at(0));
  j["dtype"] = "float8";
  CHECK_THROWS_WITH_AS(plan::instance_from_json(j), doctest::Contains("unknown dtype `float8`"), user_error);
}

TEST_CASE("a searched plan round-trips through its report: calls, origins, derivations, program steps") {
  const plan::capabilities caps{{plan::blas}};
  auto r = search::optimize_program(conv_relu(), derive::intra_rules(), slow_loops(), {}, {}, caps);
  auto p = search::make_plan(r, caps);
  auto o = options();
  // read back as from the file ein_generate writes
  auto j = nlohmann::json::parse(codegen::report(p, o).dump(2));
  REQUIRE(j["plan"].size() == p.kernels.size());
  REQUIRE(j["derivation"].size() == p.derivations.size());
  CHECK(j["capabilities"] == "blas");
  std::size_t calls = 0;
  auto again = p;
  for (std::size_t k = 0; k < p.kernels.size(); ++k) {
    auto& kernel = p.kernels[k];
    auto& e = j["plan"][k];
    CAPTURE(e["definition"]);
    CHECK(ir::to_string(ir::from_json<ir::scope>(e["ir"])) == ir::to_string(*kernel.value));
    REQUIRE(kernel.origin);  // every definition comes from a subprogram's plan here
    CHECK(e["origin"] == p.derivations[*kernel.origin].subprogram);
    if (!kernel.call) {
      CHECK(e["call"].is_null());
      continue;
    }
    ++calls;
    auto c = plan::call_from_json(e["call"], p);
    CHECK(c.library == kernel.call->library);
    CHECK(c.inputs == kernel.call->inputs);
    CHECK(plan::to_json(c.op) == plan::to_json(kernel.call->op));
    again.kernels[k].call = c;
  }
  CHECK(calls >= 1);  // the derived Matmul
  // the plan with its calls read back from the report emits the same code
  CHECK(codegen::emit_header(again, o) == codegen::emit_header(p, o));
  bool derived = false;
  for (std::size_t d = 0; d < p.derivations.size(); ++d) {
    auto back = plan::derivation_from_json(j["derivation"][d]);
    CHECK(back.subprogram == p.derivations[d].subprogram);
    CHECK(back.definition == p.derivations[d].definition);
    CHECK(back.searched == p.derivations[d].searched);
    CHECK(back.target == p.derivations[d].target);
    CHECK(back.seconds == p.derivations[d].seconds);
    CHECK(back.steps == p.derivations[d].steps);
    derived = derived || !back.steps.empty();
  }
  CHECK(derived);  // the convolution was derived into the Matmul: its steps are in the report
  REQUIRE(j["program_steps"].size() == p.program_steps.size());
  for (std::size_t s = 0; s < p.program_steps.size(); ++s)
    CHECK(plan::step_from_json(j["program_steps"][s]) == p.program_steps[s]);
  // a call naming a buffer the plan does not have, or a library no build calls
  nlohmann::json bad;
  for (auto& e : j["plan"])
    if (!e["call"].is_null()) bad = e["call"];
  auto unknown = bad;
  unknown["library"] = "mkl";
  CHECK_THROWS_WITH_AS(plan::call_from_json(unknown, p), doctest::Contains("unknown library `mkl`"), user_error);
  bad["inputs"][0] = "nowhere";
  CHECK_THROWS_WITH_AS(plan::call_from_json(bad, p), doctest::Contains("reads `nowhere`"), user_error);
}

TEST_CASE("a library call of every family reads back as its family: CBLAS or cuBLAS, cuDNN, oneDNN") {
  const auto conv = plan_test::conv(3, 1);
  for (auto [caps, family] : {std::pair{codegen::capabilities_of(codegen::backend::host, true, false, true), "onednn"},
                              std::pair{codegen::capabilities_of(codegen::backend::cuda, false, true), "cudnn"}}) {
    CAPTURE(family);
    auto p = plan::make_plan(conv, caps);
    REQUIRE(p.kernels.back().call);
    auto back = plan::call_from_json(plan::to_json(*p.kernels.back().call, p), p);
    CHECK(back.library.name == family);
    CHECK(back.inputs == p.kernels.back().call->inputs);
  }
}

}  // namespace json_test
