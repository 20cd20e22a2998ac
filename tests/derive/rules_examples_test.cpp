// The before → after examples of the rule headers and docs/rules.md, exactly as printed, and every
// listed rule over the hand-made families, one and two steps deep.
#include "rules_support.hpp"

#include <set>

#include "ein/derive/all.hpp"

namespace rules_examples_test {

using namespace rules_test;

namespace {

// The printed result of the candidate of `rule` on `before` whose step prints as `how`.
std::string after(derive::rule_fn rule, const scope_ptr& before, const std::string& how) {
  auto cs = rule(before);
  auto r = pick(cs, how);
  REQUIRE(r);
  CHECK(same_values(before, r));
  return to_string(*r);
}

}  // namespace

TEST_CASE("rule examples as documented") {
  auto A3 = input("A", {2, 3, 4});
  auto split = make_scope({{"i", 0, 2}}, {{"k", 0, 3}, {"l", 0, 4}}, make_access(A3, {idx("i"), idx("k"), idx("l")}));
  CHECK(to_string(*split) == "L_{i:[0,2)} Σ_{k:[0,3), l:[0,4)} A[i, k, l]");
  CHECK(after(derive::split_summation, split, "split_summation(at /: inner Σ {l}, outer Σ {k})") ==
        "L_{i:[0,2)} Σ_{k:[0,3)} {L_{k:[0,3), i:[0,2)} Σ_{l:[0,4)} A[i, k, l]}[k, i]");

  auto chain = make_scope({{"i", 0, 4}, {"l", 0, 2}}, {{"j", 0, 3}, {"k", 0, 5}},
                          make_access(input("A", {4, 5}), {idx("i"), idx("k")}) *
                              make_access(input("B", {5, 3}), {idx("k"), idx("j")}) *
                              make_access(input("C", {3, 2}), {idx("j"), idx("l")}));
  CHECK(to_string(*chain) == "L_{i:[0,4), l:[0,2)} Σ_{j:[0,3), k:[0,5)} A[i, k] * B[k, j] * C[j, l]");
  CHECK(after(derive::factor_summation, chain, "factor_summation(at /: inner Σ {j}, outer Σ {k})") ==
        "L_{i:[0,4), l:[0,2)} Σ_{k:[0,5)} A[i, k] * {L_{k:[0,5), l:[0,2)} Σ_{j:[0,3)} B[k, j] * C[j, l]}[k, l]");
  CHECK(after(derive::factor_summation, chain, "factor_summation(at /: inner Σ {k}, outer Σ {j})") ==
        "L_{i:[0,4), l:[0,2)} Σ_{j:[0,3)} C[j, l] * {L_{j:[0,3), i:[0,4)} Σ_{k:[0,5)} A[i, k] * B[k, j]}[j, i]");
  // preconditions: every factor reads the inner sum (a convolution), a max, one summation
  auto conv = make_scope({{"h", 0, 4}}, {{"r", 0, 3}, {"c", 0, 2}},
                         make_access(input("X", {6, 2}), {idx("h") + idx("r"), idx("c")}) *
                             make_access(input("K", {3, 2}), {idx("r"), idx("c")}));
  CHECK(derive::factor_summation(conv).empty());
  CHECK(derive::factor_summation(make_scope(chain->traversal, chain->summation, chain->body, reduction::max)).empty());
  CHECK(derive::factor_summation(make_scope({{"i", 0, 4}, {"j", 0, 3}}, {{"k", 0, 5}},
                                            make_access(input("A", {4, 5}), {idx("i"), idx("k")}) *
                                                make_access(input("B", {5, 3}), {idx("k"), idx("j")})))
            .empty());

  auto X = input("X", {2, 4});
  auto base = make_scope({{"m", 0, 2}, {"o", 0, 3}}, {{"i", 0, 4}},
                         make_access(X, {idx("m"), idx("i")}) * make_access(input("W", {3, 4}), {idx("o"), idx("i")}));
  auto adapter = make_scope({{"a", 0, 2}, {"b", 0, 3}}, {{"j", 0, 4}},
                            make_access(X, {idx("a"), idx("j")}) * make_access(input("V", {4, 3}), {idx("j"), idx("b")}));
  auto sum = make_scope({{"m", 0, 2}, {"o", 0, 3}}, {},
                        make_access(base, {idx("m"), idx("o")}) + make_access(adapter, {idx("m"), idx("o")}));
  CHECK(to_string(*sum) ==
        "L_{m:[0,2), o:[0,3)} {L_{m:[0,2), o:[0,3)} Σ_{i:[0,4)} X[m, i] * W[o, i]}[m, o] + "
        "{L_{a:[0,2), b:[0,3)} Σ_{j:[0,4)} X[a, j] * V[j, b]}[m, o]");
  CHECK(after(derive::merge_summation, sum, "merge_summation(at /: common factor X[m, i])") ==
        "L_{m:[0,2), o:[0,3)} {L_{m:[0,2), o:[0,3)} Σ_{i:[0,4)} X[m, i] * {L_{i:[0,4), o:[0,3)} W[o, i] + V[i, o]}[i, o]}[m, o]");

  auto shifted = make_scope({{"r", 0, 3}, {"h", 0, 5}}, {}, make_access(input("A", {5}), {idx("h") + idx("r") - 1}));
  CHECK(to_string(*shifted) == "L_{r:[0,3), h:[0,5)} A[h + r - 1]");
  CHECK(after(derive::substitute_variable, shifted, "substitute_variable(at /: t1 = h + r - 1, for {h})") ==
        "L_{r:[0,3), h:[0,5)} {L_{r:[0,3), t1:[-1,6)} A[t1]}[r, h + r - 1]");

  auto inner = make_scope({{"t", 0, 6}}, {},
                          make_unary(unary_fn::relu, make_access(input("A", {6}), {idx("t")})) * make_constant(2));
  auto merge = make_scope({{"i", 0, 5}}, {}, make_access(inner, {idx("i") + 1}) + make_constant(1));
  CHECK(to_string(*merge) == "L_{i:[0,5)} {L_{t:[0,6)} relu(A[t]) * 2}[i + 1] + 1");
  CHECK(after(derive::merge_traversal, merge, "merge_traversal(at /: inline /0, read at [i + 1])") ==
        "L_{i:[0,5)} relu(A[i + 1]) * 2 + 1");

  auto padded = [](std::int64_t lo, std::int64_t hi) {
    auto n = make_scope({{"t", lo, hi}}, {}, make_unary(unary_fn::relu, make_access(input("A", {5}), {idx("t")})));
    return make_scope({{"i", 0, 7}}, {}, make_access(n, {idx("i") - 1}));
  };
  CHECK(to_string(*padded(-1, 6)) == "L_{i:[0,7)} {L_{t:[-1,6)} relu(A[t])}[i - 1]");
  CHECK(after(derive::tighten_boundary, padded(-1, 6), "tighten_boundary(at /0: t [-1,6) → [0,5))") ==
        "L_{i:[0,7)} {L_{t:[0,5)} relu(A[t])}[i - 1]");
  CHECK(after(derive::relax_boundary, padded(0, 5), "relax_boundary(at /0: t [0,5) → [-1,6))") ==
        "L_{i:[0,7)} {L_{t:[-1,6)} relu(A[t])}[i - 1]");

  auto five = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                         make_access(input("A", {4}), {idx("i") + idx("r")}) * make_access(input("W", {5}), {idx("r")}));
  CHECK(to_string(*five) == "L_{i:[0,4)} Σ_{r:[0,5)} A[i + r] * W[r]");
  CHECK(after(derive::split_variable, five, "split_variable(at /: Σ r = 3*r1 + r2, relaxed r [0,5) → [0,6))") ==
        "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * W[3*r1 + r2]");

  ir::tensor K{"K", dtype::f32, {5}, tensor_role::weight};
  auto regrouped = make_scope({{"i", 0, 4}}, {{"r1", 0, 2}, {"r2", 0, 3}},
                          make_access(input("A", {6}), {idx("i") + idx("r1") * 3 + idx("r2")}) *
                              make_access(K, {idx("r1") * 3 + idx("r2")}));
  CHECK(to_string(*regrouped) == "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * K[3*r1 + r2]");
  CHECK(after(derive::relayout_weight, regrouped, "relayout_weight(at /: K[3*r1 + r2], over {r1,r2})") ==
        "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * {L_{r1:[0,2), r2:[0,3)} K[3*r1 + r2]}[r1, r2]");
}

TEST_CASE("every listed rule on every family, and every rule again on each candidate") {
  auto rules = derive::intra_rules();
  std::size_t steps = 0;
  for (auto& e : families())
    for (auto& first : rules) {
      auto cs = first.apply(e);
      check_all(e, cs, first.name);
      // steps identify candidates: callers select by them
      std::set<std::string> texts;
      for (auto& c : cs) CHECK(texts.insert(derive::to_string(c.how)).second);
      for (auto& c : cs)
        for (auto& second : rules) {
          auto ds = second.apply(c.result);
          steps += ds.size();
          for (auto& d : ds) {
            INFO("after ", derive::to_string(c.how));
            CHECK(d.how.rule == second.name);
            CHECK(same_values(e, d.result));
          }
        }
    }
  CHECK(steps > 100);
}

}  // namespace rules_examples_test
