// Inter-expression rules: apply cases checked on whole programs with the interpreter,
// precondition cases that must yield nothing, and every rule over generated programs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "ein/derive/all.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

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

tensor X{"X", dtype::f32, {4, 3}, tensor_role::input};
tensor W1{"W1", dtype::f32, {3, 2}, tensor_role::weight};
tensor W2{"W2", dtype::f32, {3, 5}, tensor_role::weight};

// y1 = X·W1 (4×2), y2 = X·W2 (4×5): two matmuls sharing their input.
program two_matmuls() {
  auto y1 = def("y1", make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 0, 3}},
                                 make_access(X, {idx("i"), idx("k")}) * make_access(W1, {idx("k"), idx("j")})));
  auto y2 = def("y2", make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}},
                                 make_access(X, {idx("m"), idx("q")}) * make_access(W2, {idx("q"), idx("n")})));
  return {"two_matmuls", {X, W1, W2}, {y1, y2}, {"y1", "y2"}};
}

}  // namespace

TEST_CASE("split_expression: a matmul splits along each traversal iterator at 1, n/2, n-1") {
  auto p = two_matmuls();
  p.definitions.pop_back();
  p.outputs = {"y1"};
  auto candidates = derive::split_expression(p);
  // i ∈ [0,4): 1, 2, 3; j ∈ [0,2): 1.
  REQUIRE(candidates.size() == 4);
  check_all(candidates, p);
  auto& r = candidates.front().result;
  CHECK(r.definitions.size() == 3);
  CHECK(r.find_definition("y1_part0")->value->shape() == std::vector<std::int64_t>{1, 2});
  CHECK(r.find_definition("y1_part1")->value->shape() == std::vector<std::int64_t>{3, 2});
}

TEST_CASE("split_expression: a padded convolution's parts keep the padding") {
  tensor A{"A", dtype::f32, {5, 5, 2}, tensor_role::input};
  tensor K{"K", dtype::f32, {3, 3, 2, 2}, tensor_role::weight};
  auto conv = def("conv", make_scope({{"h", 0, 5}, {"w", 0, 5}, {"f", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 2}},
                                     make_access(A, {idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                         make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")})));
  auto out = def("out", make_scope({{"h", 0, 5}, {"w", 0, 5}, {"f", 0, 2}}, {},
                                   make_unary(unary_fn::relu, make_access(ref(conv), {idx("h"), idx("w"), idx("f")}))));
  program p{"conv", {A, K}, {conv, out}, {"out"}};
  auto candidates = derive::split_expression(p);
  CHECK(candidates.size() == 2 * (3 + 3 + 1));
  check_all(candidates, p);
}

TEST_CASE("split_expression: nothing to split") {
  tensor A{"A", dtype::f32, {4}, tensor_role::input};
  SUBCASE("extent 1 everywhere") {
    program p{"p", {A}, {def("d", make_scope({{"i", 0, 1}}, {{"k", 0, 4}}, make_access(A, {idx("k")})))}, {"d"}};
    CHECK(derive::split_expression(p).empty());
  }
  SUBCASE("a traversal range not starting at 0") {
    program p{"p", {A}, {def("d", make_scope({{"i", -1, 3}}, {}, make_access(A, {idx("i")})))}, {"d"}};
    CHECK(derive::split_expression(p).empty());
  }
}

TEST_CASE("merge_expression: two matmuls sharing an input become one over concatenated weights") {
  auto p = two_matmuls();
  auto candidates = derive::merge_expression(p);
  REQUIRE(candidates.size() == 1);
  check_all(candidates, p);
  auto& r = candidates.front().result;
  auto* concat = r.find_definition("W1_W2");
  auto* merged = r.find_definition("y1_y2");
  REQUIRE(concat);
  REQUIRE(merged);
  CHECK(concat->value->shape() == std::vector<std::int64_t>{3, 7});
  CHECK(merged->value->shape() == std::vector<std::int64_t>{4, 7});
  // the merged definition reads the input once per element and the slices read only it
  CHECK(to_string(*r.find_definition("y2")->value) == "L_{m:[0,4), n:[0,5)} y1_y2[m, n + 2]");
}

TEST_CASE("merge_expression: two convolutions with different filters merge along f") {
  tensor A{"A", dtype::f32, {6, 6, 2}, tensor_role::input};
  tensor K1{"K1", dtype::f32, {3, 3, 3, 2}, tensor_role::weight};
  tensor K2{"K2", dtype::f32, {3, 3, 1, 2}, tensor_role::weight};
  auto conv = [&](const char* name, const tensor& K, std::int64_t f) {
    return def(name, make_scope({{"h", 0, 6}, {"w", 0, 6}, {"f", 0, f}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 2}},
                                make_access(A, {idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                    make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")})));
  };
  auto c1 = conv("c1", K1, 3), c2 = conv("c2", K2, 1);
  auto sum = def("sum", make_scope({{"h", 0, 6}, {"w", 0, 6}}, {},
                                   make_access(ref(c1), {idx("h"), idx("w"), 0}) +
                                       make_unary(unary_fn::tanh, make_access(ref(c2), {idx("h"), idx("w"), 0}))));
  program p{"convs", {A, K1, K2}, {c1, c2, sum}, {"sum"}};
  auto candidates = derive::merge_expression(p);
  REQUIRE(candidates.size() == 1);
  check_all(candidates, p);
}

TEST_CASE("merge_expression: preconditions") {
  auto p = two_matmuls();
  SUBCASE("different summation ranges") {
    tensor W3{"W3", dtype::f32, {2, 5}, tensor_role::weight};
    p.tensors.push_back(W3);
    p.definitions[1].value = make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 2}},
                                        make_access(X, {idx("m"), idx("q")}) * make_access(W3, {idx("q"), idx("n")}));
    CHECK(derive::merge_expression(p).empty());
  }
  SUBCASE("no shared input") {
    tensor X2{"X2", dtype::f32, {4, 3}, tensor_role::input};
    p.tensors.push_back(X2);
    p.definitions[1].value = make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}},
                                        make_access(X2, {idx("m"), idx("q")}) * make_access(W2, {idx("q"), idx("n")}));
    CHECK(derive::merge_expression(p).empty());
  }
  SUBCASE("a different computation") {
    p.definitions[1].value = make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}},
                                        make_access(X, {idx("m"), idx("q")}) + make_access(W2, {idx("q"), idx("n")}));
    CHECK(derive::merge_expression(p).empty());
  }
  SUBCASE("nested scopes that differ in their reduction only") {
    // y1 reads Σ_c X (twice X), y2 max_c X (X): one merged definition would compute y2 with a sum
    auto nested = [](reduction how) {
      return make_scope({{"a", 0, 4}, {"b", 0, 3}}, {{"c", 0, 2}}, make_access(X, {idx("a"), idx("b")}), how);
    };
    auto body = [&](reduction how, const tensor& W, const char* i, const char* j, const char* k) {
      return make_access(nested(how), {idx(i), idx(k)}) * make_access(X, {idx(i), idx(k)}) *
             make_access(W, {idx(k), idx(j)});
    };
    p.definitions[0].value =
        make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 0, 3}}, body(reduction::sum, W1, "i", "j", "k"));
    p.definitions[1].value =
        make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}}, body(reduction::max, W2, "m", "n", "q"));
    CHECK(derive::merge_expression(p).empty());
    // with the same reduction they merge
    p.definitions[1].value =
        make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}}, body(reduction::sum, W2, "m", "n", "q"));
    auto merged = derive::merge_expression(p);
    CHECK(merged.size() == 1);
    check_all(merged, p);
  }
  SUBCASE("the weight read at a shifted index") {
    p.definitions[1].value = make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}},
                                        make_access(X, {idx("m"), idx("q")}) * make_access(W2, {idx("q"), idx("n") + 1}));
    CHECK(derive::merge_expression(p).empty());
  }
  SUBCASE("dependent definitions") {
    // z1 = S·V and z2 = S·z1: the same computation with the pair (V, z1) and S shared, but z2
    // reads z1.
    tensor S{"S", dtype::f32, {3, 3}, tensor_role::input};
    tensor V{"V", dtype::f32, {3, 2}, tensor_role::weight};
    auto z1 = def("z1", make_scope({{"i", 0, 3}, {"j", 0, 2}}, {{"k", 0, 3}},
                                   make_access(S, {idx("i"), idx("k")}) * make_access(V, {idx("k"), idx("j")})));
    auto z2 = def("z2", make_scope({{"i", 0, 3}, {"j", 0, 2}}, {{"k", 0, 3}},
                                   make_access(S, {idx("i"), idx("k")}) * make_access(ref(z1), {idx("k"), idx("j")})));
    program q{"dependent", {S, V}, {z1, z2}, {"z2"}};
    CHECK(derive::merge_expression(q).empty());
    // the same pair without the dependency merges
    tensor U{"U", dtype::f32, {3, 2}, tensor_role::weight};
    q.tensors.push_back(U);
    q.definitions[1].value = make_scope({{"i", 0, 3}, {"j", 0, 2}}, {{"k", 0, 3}},
                                        make_access(S, {idx("i"), idx("k")}) * make_access(U, {idx("k"), idx("j")}));
    q.outputs = {"z1", "z2"};
    auto merged = derive::merge_expression(q);
    CHECK(merged.size() == 1);
    check_all(merged, q);
  }
}

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
    auto p = eval::generate_program(seed, size);
    INFO("seed " << seed);
    auto rules = derive::program_rules();
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
