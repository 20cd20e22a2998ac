// Summation merging: a generated family of two sums added or subtracted (shifted and padded reads,
// renamed iterators, factors in any order, a nested scope as a factor), every candidate against
// the interpreter; where it must not apply (a max, other boxes, no common factor); and the LoRA
// adapter's derivation to one product over merged weights.
#include "rules_support.hpp"

#include "ein/derive/merge_summation.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/eval/random.hpp"

namespace rules_merge_summation_test {

using namespace rules_test;

namespace {

// Pair `seed`: L_{m,o} {L_{m,o} Σ_i X[m, i + a]·W[o, i]}[m + e, o] ± {L_{p,q} Σ_j G·X[p, j + a]}[m + e, o],
// the two terms either way round, with random extents, X read shifted by a ∈ {-1, 0, 1} (reads in
// the padding), the outer m ranging one past the nested boxes when e = 1 (reads outside both), G
// one of V[j, q], a nested scope {L Σ_r A[r, j]·B[q, r]}[j, q], V[j, q] times a constant, or
// A[r, j]·B[q, r] with r summed beside j (in either order) as traversal merging leaves a chain.
scope_ptr pair(std::uint64_t seed) {
  eval::random_stream rng(seed * 0x9e3779b97f4a7c15ULL + 11);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
  std::int64_t M = pick(1, 3), O = pick(1, 4), I = pick(1, 4), R = pick(1, 3), a = pick(-1, 1), e = pick(0, 1);
  auto X = input("X", {M, I}), W = input("W", {O, I}), V = input("V", {I, O});
  auto A = input("A", {R, I}), B = input("B", {O, R});
  auto base = make_scope({{"m", 0, M}, {"o", 0, O}}, {{"i", 0, I}},
                         make_access(X, {idx("m"), idx("i") + a}) * make_access(W, {idx("o"), idx("i")}));
  expr g = make_access(V, {idx("j"), idx("q")});
  std::vector<iterator> sum{{"j", 0, I}};
  switch (pick(0, 3)) {
    case 1: {
      auto ba = make_scope({{"c", 0, I}, {"d", 0, O}}, {{"r", 0, R}},
                           make_access(A, {idx("r"), idx("c")}) * make_access(B, {idx("d"), idx("r")}));
      g = make_access(ba, {idx("j"), idx("q")});
      break;
    }
    case 2: g = g * make_constant(0.5); break;
    case 3:
      g = make_access(A, {idx("r"), idx("j")}) * make_access(B, {idx("q"), idx("r")});
      sum.insert(pick(0, 1) ? sum.begin() : sum.end(), iterator{"r", 0, R});
      break;
    default: break;
  }
  auto low = make_scope({{"p", 0, M}, {"q", 0, O}}, sum, g * make_access(X, {idx("p"), idx("j") + a}));
  std::vector<affine> at{idx("m") + e, idx("o")};
  auto first = make_access(base, at), second = make_access(low, at);
  if (pick(0, 1)) std::swap(first, second);
  return make_scope({{"m", -e, M}, {"o", 0, O}}, {}, pick(0, 1) ? first + second : first - second);
}

}  // namespace

TEST_CASE("merge_summation over a generated family of pairs: every candidate equals its source") {
  int summed_inside = 0;  // pairs whose chain's r is summed in the new inner scope
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto e = pair(seed);
    auto cs = derive::merge_summation(e);
    check_all(e, cs, "merge_summation");
    REQUIRE(cs.size() == 1);  // X is the one factor in common
    CHECK(to_string(*cs[0].how.get<expr>("common factor")).starts_with("X["));
    summed_inside += cs[0].how.get<std::vector<std::string>>("inner Σ") != nullptr;
  }
  CHECK(summed_inside >= 5);
}

TEST_CASE("merge_summation leaves a max, other boxes and products with nothing in common alone") {
  auto X = input("X", {2, 4}), W = input("W", {3, 4}), V = input("V", {4, 3});
  auto sum_of = [&](const tensor& t, std::vector<affine> index, std::int64_t n, reduction r) {
    return make_scope({{"m", 0, 2}, {"o", 0, 3}}, {{"i", 0, n}},
                      make_access(X, {idx("m"), idx("i")}) * make_access(t, std::move(index)), r);
  };
  std::vector<affine> at{idx("m"), idx("o")};
  auto add = [&](scope_ptr a, scope_ptr b) {
    return make_scope({{"m", 0, 2}, {"o", 0, 3}}, {}, make_access(a, at) + make_access(b, at));
  };
  auto plain = add(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum), sum_of(V, {idx("i"), idx("o")}, 4, reduction::sum));
  CHECK(derive::merge_summation(plain).size() == 1);
  // a max does not distribute over +: max_i x·w + max_i x·v differs from max_i x·(w + v)
  auto maxes = add(sum_of(W, {idx("o"), idx("i")}, 4, reduction::max), sum_of(V, {idx("i"), idx("o")}, 4, reduction::max));
  CHECK(derive::merge_summation(maxes).empty());
  auto wrong = make_scope(
      {{"m", 0, 2}, {"o", 0, 3}}, {{"i", 0, 4}},
      make_access(X, {idx("m"), idx("i")}) *
          make_access(make_scope({{"i", 0, 4}, {"o", 0, 3}}, {},
                                 make_access(W, {idx("o"), idx("i")}) + make_access(V, {idx("i"), idx("o")})),
                      {idx("i"), idx("o")}),
      reduction::max);
  CHECK_FALSE(same_values(maxes, wrong));
  CHECK(derive::merge_summation(add(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum),
                                    sum_of(V, {idx("i"), idx("o")}, 4, reduction::max)))
            .empty());
  // other summation boxes, other reads, no common factor, a product under max
  CHECK(derive::merge_summation(add(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum),
                                    sum_of(V, {idx("i"), idx("o")}, 3, reduction::sum)))
            .empty());
  auto shifted = make_scope({{"m", 0, 2}, {"o", 0, 3}}, {},
                            make_access(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum), at) +
                                make_access(sum_of(V, {idx("i"), idx("o")}, 4, reduction::sum), {idx("m"), idx("o") - 1}));
  CHECK(derive::merge_summation(shifted).empty());
  auto other = make_scope({{"m", 0, 2}, {"o", 0, 3}}, {{"i", 0, 4}},
                          make_access(input("Y", {2, 4}), {idx("m"), idx("i")}) * make_access(V, {idx("i"), idx("o")}));
  CHECK(derive::merge_summation(add(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum), other)).empty());
  auto larger = make_scope({{"m", 0, 2}, {"o", 0, 3}}, {},
                           max(make_access(sum_of(W, {idx("o"), idx("i")}, 4, reduction::sum), at),
                               make_access(sum_of(V, {idx("i"), idx("o")}, 4, reduction::sum), at)));
  CHECK(derive::merge_summation(larger).empty());
}

TEST_CASE("merge_summation after traversal merging turns a LoRA adapter into one product over W + B·A") {
  auto X = input("X", {2, 6}), W = input("W", {5, 6}), A = input("A", {3, 6}), B = input("B", {5, 3});
  auto h = make_scope({{"m", 0, 2}, {"r", 0, 3}}, {{"i", 0, 6}},
                      make_access(X, {idx("m"), idx("i")}) * make_access(A, {idx("r"), idx("i")}));
  auto base = make_scope({{"m", 0, 2}, {"o", 0, 5}}, {{"i", 0, 6}},
                         make_access(X, {idx("m"), idx("i")}) * make_access(W, {idx("o"), idx("i")}));
  auto low = make_scope({{"m", 0, 2}, {"o", 0, 5}}, {{"q", 0, 3}},
                        make_access(h, {idx("m"), idx("q")}) * make_access(B, {idx("o"), idx("q")}));
  std::vector<affine> at{idx("m"), idx("o")};
  auto y = make_scope({{"m", 0, 2}, {"o", 0, 5}}, {}, make_access(base, at) + make_access(low, at));
  CHECK(derive::merge_summation(y).empty());  // h·B has no factor in common with x·W yet
  auto merged = pick(derive::merge_traversal(y), "merge_traversal(at /1: inline /1/0, read at [m, q])");
  CHECK(to_string(*merged) ==
        "L_{m:[0,2), o:[0,5)} {L_{m:[0,2), o:[0,5)} Σ_{i:[0,6)} X[m, i] * W[o, i]}[m, o] + "
        "{L_{m:[0,2), o:[0,5)} Σ_{q:[0,3), i:[0,6)} X[m, i] * A[q, i] * B[o, q]}[m, o]");
  auto cs = derive::merge_summation(merged);
  check_all(merged, cs, "merge_summation");
  CHECK(to_string(*pick(cs, "merge_summation(at /: common factor X[m, i], inner Σ {q})")) ==
        "L_{m:[0,2), o:[0,5)} {L_{m:[0,2), o:[0,5)} Σ_{i:[0,6)} X[m, i] * {L_{i:[0,6), o:[0,5)} W[o, i] + "
        "{L_{i:[0,6), o:[0,5)} Σ_{q:[0,3)} A[q, i] * B[o, q]}[i, o]}[i, o]}[m, o]");
}

}  // namespace rules_merge_summation_test
