// Inter-expression rules: apply cases checked on whole programs with the interpreter,
// precondition cases that must yield nothing, and every rule over generated programs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "ein/derive/all.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"
#include "input_twin.hpp"

namespace program_rules_test {

using namespace ein;
using namespace ein::ir;

namespace {

// Every output of `after` equals that of `before` on random inputs; both verify.
void check_equal(const program& before, const program& after, std::uint64_t seed) {
  INFO("before:\n" << to_string(before) << "after:\n" << to_string(after));
  verify(before);
  verify(after);
  REQUIRE(after.outputs == before.outputs);
  REQUIRE(after.tensors == before.tensors);
  auto inputs = eval::random_inputs(before, seed);
  auto want = eval::evaluate(before, inputs);
  auto got = eval::evaluate(after, inputs);
  for (auto& o : before.outputs) {
    INFO("output " << o);
    REQUIRE(got.at(o).shape == want.at(o).shape);
    CHECK(eval::max_rel_error(got.at(o), want.at(o)) <= 1e-12);
  }
}

void check_all(const std::vector<derive::program_candidate>& candidates, const program& source) {
  for (auto& c : candidates) {
    INFO(derive::to_string(c.how));
    check_equal(source, c.result, 7);
  }
}

definition def(const std::string& name, scope_ptr value) { return {name, std::move(value), dtype::f32}; }
tensor ref(const definition& d) { return {d.name, d.type, d.value->shape(), tensor_role::definition}; }

}  // namespace

TEST_CASE("fuse_expression: a producer read only by its consumer is inlined") {
  tensor A{"A", dtype::f32, {4, 3}, tensor_role::input};
  tensor B{"B", dtype::f32, {3}, tensor_role::weight};
  auto t = def("t", make_scope({{"i", 0, 4}}, {{"k", 0, 3}},
                               make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k")})));
  auto y = def("y", make_scope({{"i", 0, 5}}, {},
                               make_unary(unary_fn::relu, make_access(ref(t), {idx("i") - 1})) +
                                   make_access(ref(t), {idx("i")})));
  program p{"chain", {A, B}, {t, y}, {"y"}};
  auto candidates = derive::fuse_expression(p);
  REQUIRE(candidates.size() == 1);
  check_all(candidates, p);
  auto& r = candidates.front().result;
  REQUIRE(r.definitions.size() == 1);
  CHECK(to_string(*r.definitions[0].value) ==
        "L_{i:[0,5)} relu({L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * B[k]}[i - 1]) + "
        "{L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * B[k]}[i]");
}

TEST_CASE("fuse_expression then traversal merging: two definitions become one scope") {
  tensor A{"A", dtype::f32, {6}, tensor_role::input};
  tensor B{"B", dtype::f32, {3}, tensor_role::weight};
  auto t = def("t", make_scope({{"i", 0, 6}}, {}, make_unary(unary_fn::exp, make_access(A, {idx("i")}))));
  auto y = def("y", make_scope({{"i", 0, 4}}, {{"k", 0, 3}},
                               make_access(ref(t), {idx("i") + idx("k")}) * make_access(B, {idx("k")})));
  program p{"chain", {A, B}, {t, y}, {"y"}};
  auto fused = derive::fuse_expression(p);
  REQUIRE(fused.size() == 1);
  auto rules = derive::intra_rules();
  auto merge = std::find_if(rules.begin(), rules.end(), [](auto& r) { return std::string(r.name) == "merge_traversal"; });
  REQUIRE(merge != rules.end());
  auto merged = merge->apply(fused.front().result.definitions[0].value);
  REQUIRE(!merged.empty());
  auto q = fused.front().result;
  q.definitions[0].value = merged.front().result;
  // e.g. `L_{i:[0,4)} Σ_{k:[0,3)} exp(A[i + k]) * B[k]`: no nested scope is left
  CHECK(to_string(*q.definitions[0].value).find("{L_") == std::string::npos);
  check_equal(p, q, 3);
}

TEST_CASE("fuse_expression: preconditions") {
  tensor A{"A", dtype::f32, {4}, tensor_role::input};
  auto t = def("t", make_scope({{"i", 0, 4}}, {}, make_unary(unary_fn::exp, make_access(A, {idx("i")}))));
  auto y = def("y", make_scope({{"i", 0, 4}}, {}, make_access(ref(t), {idx("i")}) * make_constant(2)));
  auto z = def("z", make_scope({{"i", 0, 4}}, {}, make_access(ref(t), {idx("i")}) + make_constant(1)));
  SUBCASE("a producer with two readers") {
    program p{"two", {A}, {t, y, z}, {"y", "z"}};
    CHECK(derive::fuse_expression(p).empty());
  }
  SUBCASE("a producer that is an output") {
    program p{"out", {A}, {t, y}, {"y", "t"}};
    CHECK(derive::fuse_expression(p).empty());
  }
  SUBCASE("a single definition") {
    program p{"one", {A}, {t}, {"t"}};
    CHECK(derive::fuse_expression(p).empty());
  }
}

TEST_CASE("program rules: every candidate over generated programs equals its source") {
  std::vector<std::size_t> counts(derive::program_rules().size(), 0);
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    eval::generate_options size;
    size.max_extent = 5;
    size.max_work = 4000;
    auto generated = eval::generate_program(seed, size);
    INFO("seed " << seed);
    auto rules = derive::program_rules();
    for (auto& p : {generated, derive_test::input_twin(generated)})
      for (std::size_t r = 0; r < rules.size(); ++r) {
        auto candidates = rules[r].apply(p);
        counts[r] += candidates.size();
        check_all(candidates, p);
        // deterministic: the same candidates in the same order
        auto again = rules[r].apply(p);
        REQUIRE(again.size() == candidates.size());
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(to_string(again[i].result) == to_string(candidates[i].result));
      }
  }
  // the family reaches every rule
  for (auto c : counts) CHECK(c > 0);
}

TEST_CASE("verify_candidates: a candidate that does not verify is a bug of the rule that made it") {
  auto A = tensor{"A", dtype::f32, {4}, tensor_role::input};
  auto good = make_scope({{"i", 0, 4}}, {}, make_access(A, {idx("i")}));
  auto empty_range = make_scope({{"i", 3, 3}}, {}, make_access(A, {idx("i")}));
  std::vector<derive::candidate> cs{{good, {"some_rule", derive::path{}, {}}}};
  CHECK_NOTHROW(derive::verify_candidates("some_rule", cs));
  cs.push_back({empty_range, {"some_rule", derive::path{}, {}}});
  CHECK_THROWS_WITH_AS(derive::verify_candidates("some_rule", cs),
                       doctest::Contains("some_rule produced an expression that does not verify"), internal_error);
  program p{"p", {A}, {{"y", good, dtype::f32}}, {"y"}};
  std::vector<derive::program_candidate> ps{{p, {"some_rule", std::nullopt, {}}}};
  CHECK_NOTHROW(derive::verify_candidates("some_rule", ps));
  ps[0].result.outputs = {"z"};  // names no definition
  CHECK_THROWS_AS(derive::verify_candidates("some_rule", ps), internal_error);
}

TEST_CASE("verify_in_debug: what a search rewrites without a rule's function is checked in debug builds only") {
  auto A = tensor{"A", dtype::f32, {4}, tensor_role::input};
  auto empty_range = make_scope({{"i", 3, 3}}, {}, make_access(A, {idx("i")}));
#ifdef NDEBUG
  CHECK_NOTHROW(derive::verify_in_debug("fuse_expression", *empty_range));
#else
  CHECK_THROWS_WITH_AS(derive::verify_in_debug("fuse_expression", *empty_range),
                       doctest::Contains("fuse_expression produced an expression that does not verify"), internal_error);
#endif
}

}  // namespace program_rules_test
