// Traversal merging: inlining nested scopes, and the reads that forbid it.
#include "rules_support.hpp"

#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/split_summation.hpp"

namespace rules_merge_traversal_test {

using namespace rules_test;

TEST_CASE("merge_traversal: inlines a scope without summation") {
  // L_i {L_t relu(A[t]) * 2}[i + 1] with the read inside the box
  auto inner = make_scope({{"t", 0, 6}}, {},
                          make_unary(unary_fn::relu, make_access(input("A", {6}), {idx("t")})) * make_constant(2));
  auto s = make_scope({{"i", 0, 5}}, {}, make_access(inner, {idx("i") + 1}) + make_constant(1));
  auto cs = derive::merge_traversal(s);
  check_all(s, cs, "merge_traversal");
  CHECK(to_string(*pick(cs, "merge_traversal(at /: inline /0, read at [i + 1])")) == "L_{i:[0,5)} relu(A[i + 1]) * 2 + 1");
}

TEST_CASE("merge_traversal: joins a nested sum that is the whole body (undoes split_summation)") {
  auto e = conv(4, 2, 2, 3, 1);
  auto split = pick(derive::split_summation(e), "split_summation(at /: inner Σ {c}, outer Σ {r,s})");
  auto cs = derive::merge_traversal(split);
  check_all(split, cs, "merge_traversal");
  CHECK(to_string(*pick(cs, "merge_traversal(at /: inline /0, read at [r, s, h, w, f])")) ==
        "L_{h:[0,4), w:[0,4), f:[0,2)} Σ_{r:[0,3), s:[0,3), c:[0,2)} "
        "A[h + r - 1, s + w - 1, c] * K[r, s, f, c]");
}

TEST_CASE("merge_traversal: renames a nested summation iterator that clashes") {
  auto inner = make_scope({{"a", 0, 3}}, {{"i", 0, 2}}, make_access(input("A", {3, 2}), {idx("a"), idx("i")}));
  auto s = make_scope({{"i", 0, 3}}, {}, make_access(inner, {idx("i")}));
  auto cs = derive::merge_traversal(s);
  check_all(s, cs, "merge_traversal");
  CHECK(to_string(*pick(cs, "merge_traversal(at /: inline /0, read at [i])")) == "L_{i:[0,3)} Σ_{i1:[0,2)} A[i, i1]");
}

TEST_CASE("merge_traversal: reads outside the box where the body is zero anyway") {
  // the stencil reads its padded copy at i + r - 1 ∈ [-1, 7) ⊆ [-1, 7): in the box
  auto st = stencil(6);
  auto cs = derive::merge_traversal(st);
  check_all(st, cs, "merge_traversal");
  CHECK(to_string(*pick(cs, "merge_traversal(at /: inline /0, read at [i + r - 1])")) ==
        "L_{i:[0,6)} Σ_{r:[0,3)} relu(A[i + r - 1]) * W[r]");
  // a tight copy L_{t:[0,6)} relu(A[t]) read at [-1, 7): outside only where A is padding
  auto tight = make_scope({{"t", 0, 6}}, {}, make_unary(unary_fn::relu, make_access(input("A", {6}), {idx("t")})));
  auto s = make_scope({{"i", 0, 6}}, {{"r", 0, 3}},
                      make_access(tight, {idx("i") + idx("r") - 1}) * make_access(input("W", {3}), {idx("r")}));
  auto ts = derive::merge_traversal(s);
  check_all(s, ts, "merge_traversal");
  CHECK(ts.size() == 1);
}

TEST_CASE("merge_traversal: precondition: reads leave the box where the body is not zero") {
  // sigmoid(padding) = 0.5: inlining would turn the zeros read outside [0,6) into 0.5
  auto inner = make_scope({{"t", 0, 6}}, {}, make_unary(unary_fn::sigmoid, make_access(input("A", {6}), {idx("t")})));
  auto s = make_scope({{"i", 0, 6}}, {{"r", 0, 3}},
                      make_access(inner, {idx("i") + idx("r") - 1}) * make_access(input("W", {3}), {idx("r")}));
  CHECK(derive::merge_traversal(s).empty());
  // a constant body is not zero anywhere
  auto ones = make_scope({{"t", 0, 4}}, {}, make_constant(1));
  CHECK(derive::merge_traversal(make_scope({{"i", 0, 5}}, {}, make_access(ones, {idx("i")}))).empty());
}

TEST_CASE("merge_traversal: a nested sum that is a factor of a product distributes") {
  auto inner = make_scope({{"a", 0, 3}}, {{"k", 0, 2}}, make_access(input("A", {3, 2}), {idx("a"), idx("k")}));
  auto s = make_scope({{"i", 0, 3}}, {{"j", 0, 2}},
                      make_access(input("B", {3}), {idx("i")}) *
                          make_unary(unary_fn::neg, make_access(inner, {idx("i")}) * make_access(input("C", {2}), {idx("j")})));
  CHECK(to_string(*s) == "L_{i:[0,3)} Σ_{j:[0,2)} B[i] * -({L_{a:[0,3)} Σ_{k:[0,2)} A[a, k]}[i] * C[j])");
  auto cs = derive::merge_traversal(s);
  check_all(s, cs, "merge_traversal");
  CHECK(to_string(*pick(cs, "merge_traversal(at /: inline /0, read at [i])")) ==
        "L_{i:[0,3)} Σ_{j:[0,2), k:[0,2)} B[i] * -(A[i, k] * C[j])");
}

TEST_CASE("merge_traversal: precondition: a nested sum under +, / or a function stays") {
  auto inner = make_scope({{"a", 0, 3}}, {{"k", 0, 2}}, make_access(input("A", {3, 2}), {idx("a"), idx("k")}));
  auto read = make_access(inner, {idx("i")});
  auto b = make_access(input("B", {3}), {idx("i")});
  for (auto& body : {read + b, read / b, b / read, make_unary(unary_fn::relu, read) * b})
    CHECK(derive::merge_traversal(make_scope({{"i", 0, 3}}, {}, body)).empty());
}

TEST_CASE("merge_traversal: every candidate on every family equals its source") {
  for (auto& e : families()) {
    check_all(e, derive::merge_traversal(e), "merge_traversal");
    for (auto& c : derive::split_summation(e))
      check_all(c.result, derive::merge_traversal(c.result), "merge_traversal");
  }
}

TEST_CASE("merge_traversal: a step's parameters name the nested scope it inlines and the read") {
  // L_i {L_t A[t]}[i + 1] + {L_u B[u]}[i]: two nested scopes, each inlined by its own candidate,
  // whose `inline` position leads to that scope and whose `read at` is that access's index
  auto a = make_scope({{"t", 0, 6}}, {}, make_access(input("A", {6}), {idx("t")}));
  auto b = make_scope({{"u", 0, 5}}, {}, make_access(input("B", {5}), {idx("u")}));
  auto s = make_scope({{"i", 0, 5}}, {}, make_access(a, {idx("i") + 1}) + make_access(b, {idx("i")}));
  auto cs = derive::merge_traversal(s);
  check_all(s, cs, "merge_traversal");
  REQUIRE(cs.size() == 2);
  std::vector<std::pair<scope_ptr, std::vector<affine>>> expected{{a, {idx("i") + 1}}, {b, {idx("i")}}};
  for (std::size_t k = 0; k < cs.size(); ++k) {
    auto* inlined = cs[k].how.get<derive::path>("inline");
    auto* read = cs[k].how.get<std::vector<affine>>("read at");
    REQUIRE(inlined);
    REQUIRE(read);
    CHECK(*cs[k].how.at == derive::path{});
    scope_ptr found;
    derive::for_each_position(s, [&](const scope_ptr& n, const derive::path& p) {
      if (p == *inlined) found = n;
    });
    CHECK(found == expected[k].first);
    CHECK(*read == expected[k].second);
    CHECK(cs[k].how.get<std::string>("inline") == nullptr);  // a parameter has one type
  }
}

}  // namespace rules_merge_traversal_test
