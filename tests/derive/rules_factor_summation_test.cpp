// Summation factoring: a generated family of products of three factors over two or three
// summation iterators (chains of contractions, shifted and padded reads, a constant factor, a
// nested scope as a factor), every candidate against the interpreter, and where it does not apply.
#include "rules_support.hpp"

#include "ein/derive/factor_summation.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/eval/random.hpp"

namespace rules_factor_summation_test {

using namespace rules_test;

namespace {

// Product `seed`: L_{i,l} Σ_{j,k[,m]} A[i, k + a]·B[k, j (+ m)]·C[j, l]·(2) with random extents,
// A read shifted by a ∈ {-1, 0, 1} (reads in the padding), B reading the third summation
// iterator m when there is one, a constant factor in half of them, and C's factor a nested scope
// (C scaled by 3) in a third of them.
scope_ptr product(std::uint64_t seed) {
  eval::random_stream rng(seed * 0x9e3779b97f4a7c15ULL + 5);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
  std::int64_t I = pick(1, 4), J = pick(1, 4), K = pick(1, 4), L = pick(1, 4), M = pick(1, 3);
  bool third = pick(0, 1) == 1, constant = pick(0, 1) == 1, nested = pick(0, 2) == 0;
  std::int64_t shift = pick(-1, 1);
  auto A = input("A", {I, K}), B = input("B", {K, J + M}), C = input("C", {J, L});
  std::vector<iterator> sum{{"j", 0, J}, {"k", 0, K}};
  if (third) sum.push_back({"m", 0, M});
  auto b_col = third ? idx("j") + idx("m") : idx("j");
  expr c = make_access(C, {idx("j"), idx("l")});
  if (nested)
    c = make_access(make_scope({{"p", 0, J}, {"q", 0, L}}, {}, make_access(C, {idx("p"), idx("q")}) * make_constant(3)),
                    {idx("j"), idx("l")});
  expr body = make_access(A, {idx("i"), idx("k") + shift}) * make_access(B, {idx("k"), b_col}) * c;
  if (constant) body = make_constant(2) * body;
  return make_scope({{"i", 0, I}, {"l", 0, L}}, sum, body);
}

}  // namespace

TEST_CASE("factor_summation over a generated family of products: every candidate equals its source") {
  std::size_t candidates = 0, sources = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto e = product(seed);
    auto cs = derive::factor_summation(e);
    check_all(e, cs, "factor_summation");
    candidates += cs.size();
    sources += !cs.empty();
    // every candidate keeps a factor outside the partial sum: the body at the position is a product
    // whose last factor is the new nested scope, read at its own iterators
    for (auto& c : cs) {
      auto* b = std::get_if<ir::binary>(&*c.result->body);
      REQUIRE(b);
      CHECK(b->op == ir::binary_op::mul);
      auto* inner = std::get_if<ir::access>(&*b->rhs);
      REQUIRE(inner);
      REQUIRE(std::holds_alternative<scope_ptr>(inner->source));
      auto& n = *std::get<scope_ptr>(inner->source);
      REQUIRE(inner->index.size() == n.traversal.size());
      for (std::size_t d = 0; d < n.traversal.size(); ++d) CHECK(inner->index[d] == idx(n.traversal[d].name));
    }
  }
  MESSAGE(candidates << " candidates from " << sources << " of 60 products");
  CHECK(sources == 60);
}

TEST_CASE("factor_summation after traversal merging reassociates a chain: (A·B)·C → A·(B·C)") {
  auto A = input("A", {3, 4}), B = input("B", {4, 5}), C = input("C", {5, 2});
  auto ab = make_scope({{"i", 0, 3}, {"j", 0, 5}}, {{"k", 0, 4}},
                       make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k"), idx("j")}));
  auto chain = make_scope({{"i", 0, 3}, {"l", 0, 2}}, {{"j", 0, 5}},
                          make_access(ab, {idx("i"), idx("j")}) * make_access(C, {idx("j"), idx("l")}));
  CHECK(derive::factor_summation(chain).empty());  // one summation at the root, one inside
  auto merged = pick(derive::merge_traversal(chain), "merge_traversal(at /: inline /0, read at [i, j])");
  auto cs = derive::factor_summation(merged);
  check_all(merged, cs, "factor_summation");
  CHECK(to_string(*pick(cs, "factor_summation(at /: inner Σ {j}, outer Σ {k})")) ==
        "L_{i:[0,3), l:[0,2)} Σ_{k:[0,4)} A[i, k] * {L_{k:[0,4), l:[0,2)} Σ_{j:[0,5)} B[k, j] * C[j, l]}[k, l]");
}

}  // namespace rules_factor_summation_test
