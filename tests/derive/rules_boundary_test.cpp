// Boundary relaxing and tightening, and the constant propagation through padding behind them.
#include "rules_support.hpp"

#include "ein/derive/padding.hpp"
#include "ein/derive/relax_boundary.hpp"
#include "ein/derive/tighten_boundary.hpp"

namespace rules_boundary_test {

using namespace rules_test;

namespace {

// L_i {L_{t:[lo,hi)} f(A[t])}[i - 1], A of shape [5], i in [0, 7): reads t in [-1, 6)
scope_ptr padded_copy(std::int64_t lo, std::int64_t hi, unary_fn f) {
  auto inner = make_scope({{"t", lo, hi}}, {}, make_unary(f, make_access(input("A", {5}), {idx("t")})));
  return make_scope({{"i", 0, 7}}, {}, make_access(inner, {idx("i") - 1}));
}

}  // namespace

TEST_CASE("nonzero_values: constant propagation through padding") {
  auto A = input("A", {5, 4});
  derive::ranges r;
  r.add({{"t", -3, 9}, {"c", 0, 4}, {"u", 0, 3}});
  auto a = make_access(A, {idx("t"), idx("c")});
  auto v = [&](const expr& e) { return derive::nonzero_values(e, "t", r); };
  CHECK(v(a) == derive::interval{0, 4});
  CHECK(v(make_access(A, {idx("t") + idx("u") - 1, idx("c")})) == derive::interval{-1, 5});
  CHECK(v(make_access(A, {idx("t") * -2 + 4, idx("c")})) == derive::interval{0, 2});
  CHECK(v(make_access(A, {idx("t").floordiv(2), idx("c")})) == derive::interval{-3, 8});
  CHECK(v(make_access(A, {idx("c") + 7, idx("t")})).empty());
  CHECK(v(make_unary(unary_fn::relu, a)) == derive::interval{0, 4});
  CHECK(v(make_unary(unary_fn::tanh, a)) == derive::interval{0, 4});
  CHECK(v(make_unary(unary_fn::sigmoid, a)) == derive::interval{-3, 8});
  CHECK(v(make_unary(unary_fn::exp, a)) == derive::interval{-3, 8});
  CHECK(v(a * make_access(A, {idx("t") - 2, idx("c")})) == derive::interval{2, 4});
  CHECK(v(a + make_access(A, {idx("t") - 2, idx("c")})) == derive::interval{0, 6});
  CHECK(v(a / make_constant(2)) == derive::interval{0, 4});
  CHECK(v(a / make_access(A, {idx("c"), idx("c")})) == derive::interval{-3, 8});
  CHECK(v(make_constant(0)).empty());
  CHECK(v(a * make_constant(0)).empty());
  CHECK(v(a + make_constant(1)) == derive::interval{-3, 8});
}

TEST_CASE("tighten_boundary: a nested traversal shrinks to where the body can be non-zero") {
  auto s = padded_copy(-1, 6, unary_fn::relu);
  auto cs = derive::tighten_boundary(s);
  check_all(s, cs, "tighten_boundary");
  REQUIRE(cs.size() == 1);
  CHECK(derive::to_string(cs[0].how) == "tighten_boundary(at /0: t [-1,6) → [0,5))");
  CHECK(to_string(*cs[0].result) == "L_{i:[0,7)} {L_{t:[0,5)} relu(A[t])}[i - 1]");
}

TEST_CASE("tighten_boundary: summation ranges, at the top level too") {
  // Σ_{r:[0,5)} over a kernel of 3 taps: r = 3, 4 read padding of W
  auto s = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                      make_access(input("A", {6}), {idx("i") + idx("r")}) * make_access(input("W", {3}), {idx("r")}));
  auto cs = derive::tighten_boundary(s);
  check_all(s, cs, "tighten_boundary");
  CHECK(to_string(*pick(cs, "tighten_boundary(at /: Σ r [0,5) → [0,3))")) ==
        "L_{i:[0,4)} Σ_{r:[0,3)} A[i + r] * W[r]");
}

TEST_CASE("tighten_boundary: precondition: nothing to gain or not provably zero") {
  // sigmoid(0) = 0.5: the padded elements are not zero
  CHECK(derive::tighten_boundary(padded_copy(-1, 6, unary_fn::sigmoid)).empty());
  CHECK(derive::tighten_boundary(padded_copy(-1, 6, unary_fn::exp)).empty());
  // already tight
  CHECK(derive::tighten_boundary(padded_copy(0, 5, unary_fn::relu)).empty());
  // a top-level traversal is the output shape
  CHECK(derive::tighten_boundary(make_scope({{"t", -1, 6}}, {}, make_access(input("A", {5}), {idx("t")}))).empty());
  // a padded sum: a + 1 is non-zero everywhere
  auto s = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                      make_access(input("W", {3}), {idx("r")}) + make_constant(1));
  CHECK(derive::tighten_boundary(s).empty());
}

TEST_CASE("relax_boundary: a nested traversal grows to its readers' box over zeros") {
  auto s = padded_copy(0, 5, unary_fn::relu);
  auto cs = derive::relax_boundary(s);
  check_all(s, cs, "relax_boundary");
  REQUIRE(cs.size() == 1);
  CHECK(derive::to_string(cs[0].how) == "relax_boundary(at /0: t [0,5) → [-1,6))");
  CHECK(to_string(*cs[0].result) == "L_{i:[0,7)} {L_{t:[-1,6)} relu(A[t])}[i - 1]");
}

TEST_CASE("relax_boundary: a summation of prime extent grows by one over padding (Conv5x5 → 6x6)") {
  auto e = conv(6, 2, 2, 5, 2);
  auto cs = derive::relax_boundary(e);
  check_all(e, cs, "relax_boundary");
  CHECK(to_string(*pick(cs, "relax_boundary(at /: Σ r [0,5) → [0,6), s [0,5) → [0,6))")) ==
        "L_{h:[0,6), w:[0,6), f:[0,2)} Σ_{r:[0,6), s:[0,6), c:[0,2)} "
        "A[h + r - 2, s + w - 2, c] * K[r, s, f, c]");
  CHECK(cs.size() == 3);
}

TEST_CASE("relax_boundary: precondition: the added points would not be zero") {
  // relaxing sigmoid(A[t]) would turn the reads at -1 and 5 from 0 into 0.5
  CHECK(derive::relax_boundary(padded_copy(0, 5, unary_fn::sigmoid)).empty());
  // the reader stays inside the box: nothing to relax
  auto inner = make_scope({{"t", 0, 5}}, {}, make_access(input("A", {5}), {idx("t")}));
  CHECK(derive::relax_boundary(make_scope({{"i", 0, 5}}, {}, make_access(inner, {idx("i")}))).empty());
  // a prime sum over a non-padded body: the extra term would be A[i + 5], not zero
  auto s = make_scope({{"i", 0, 4}}, {{"r", 0, 5}}, make_access(input("A", {10}), {idx("i") + idx("r")}));
  CHECK(derive::relax_boundary(s).empty());
}

TEST_CASE("relax_boundary: precondition: only prime sums from 5 to 13 grow, to the next size with a divisor") {
  auto sums = [](const std::vector<derive::candidate>& cs) {
    std::size_t n = 0;
    for (auto& c : cs) n += c.how.get<std::vector<derive::range_change>>("Σ") != nullptr;
    return n;
  };
  CHECK(sums(derive::relax_boundary(conv(5, 2, 2, 3, 1))) == 0);  // 3 → 4: 78% more products
  CHECK(sums(derive::relax_boundary(conv(9, 2, 2, 9, 4))) == 0);  // 9 = 3·3 splits as it is
  CHECK(sums(derive::relax_boundary(conv(4, 2, 2, 4, 1))) == 0);  // even
  auto seven = conv(7, 2, 2, 7, 3);
  auto cs = derive::relax_boundary(seven);
  check_all(seven, cs, "relax_boundary");
  CHECK(pick(cs, "relax_boundary(at /: Σ r [0,7) → [0,8))"));
  CHECK(sums(cs) == 3);
}

TEST_CASE("relax_boundary and tighten_boundary are inverse on padded scopes") {
  auto s = padded_copy(-1, 6, unary_fn::tanh);
  auto t = derive::tighten_boundary(s);
  REQUIRE(t.size() == 1);
  auto back = derive::relax_boundary(t[0].result);
  REQUIRE(back.size() == 1);
  CHECK(to_string(*back[0].result) == to_string(*s));
}

TEST_CASE("boundary rules: every candidate on every family equals its source") {
  for (auto& e : families()) {
    check_all(e, derive::tighten_boundary(e), "tighten_boundary");
    check_all(e, derive::relax_boundary(e), "relax_boundary");
  }
}

}  // namespace rules_boundary_test
