// Variable substitution: proposals from indices, the bijectivity proof, and its refusals.
#include "rules_support.hpp"

#include <algorithm>

#include "ein/derive/substitute_variable.hpp"

namespace rules_substitute_variable_test {

using namespace rules_test;
using derive::substitution;

namespace {

// L_{r:[0,3), h:[0,5)} A[h + r - 1]
scope_ptr shifted() {
  return make_scope({{"r", 0, 3}, {"h", 0, 5}}, {}, make_access(input("A", {5}), {idx("h") + idx("r") - 1}));
}

}  // namespace

TEST_CASE("substitute_variable: t1 = h + r - 1 for h, over the bounding box") {
  auto s = shifted();
  auto cs = derive::substitute_variable(s);
  check_all(s, cs, "substitute_variable");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = h + r - 1, for {h})")) ==
        "L_{r:[0,3), h:[0,5)} {L_{r:[0,3), t1:[-1,6)} A[t1]}[r, h + r - 1]");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = h + r - 1, for {r})")) ==
        "L_{r:[0,3), h:[0,5)} {L_{h:[0,5), t1:[-1,6)} A[t1]}[h, h + r - 1]");
  // merging the adjacent pair (r, h), read together by A
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = h + 5*r, for {r,h})")) ==
        "L_{r:[0,3), h:[0,5)} {L_{t1:[0,15)} A[(t1 / 5) + (t1 % 5) - 1]}[h + 5*r]");
}

TEST_CASE("substitute_variable: merge and split of iterators with non-zero lower bounds") {
  auto a = input("A", {4, 6});
  auto s = make_scope({{"i", -1, 3}, {"j", 2, 8}}, {},
                      make_access(a, {idx("i") + 1, idx("j") - 2}) + make_constant(1));
  auto cs = derive::substitute_variable(s);
  check_all(s, cs, "substitute_variable");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = 6*i + j + 4, for {i,j})")) ==
        "L_{i:[-1,3), j:[2,8)} {L_{t1:[0,24)} A[t1 / 6, t1 % 6] + 1}[6*i + j + 4]");
  // reshaped: A[m / 3, m % 3, k] splits m into (m / 3, m % 3) and reads A[t1, t2, k]
  auto r = reshaped(2, 3, 4);
  auto rs = derive::substitute_variable(r);
  check_all(r, rs, "substitute_variable");
  CHECK(to_string(*pick(rs, "substitute_variable(at /: t1 = m / 3, t2 = m % 3, for {m})")) ==
        "L_{m:[0,6), j:[0,3)} {L_{t1:[0,2), t2:[0,3), j:[0,3)} Σ_{k:[0,4)} "
        "A[t1, t2, k] * B[k, j] + 0.5}[m / 3, m % 3, j]");
}

TEST_CASE("substitute_variable: merging a pair an index reads as |w|·h + w") {
  auto s = make_scope({{"h", 0, 3}, {"f", 0, 2}, {"w", 0, 4}}, {},
                      make_access(input("A", {12}), {idx("h") * 4 + idx("w")}) * make_access(input("B", {2}), {idx("f")}));
  auto cs = derive::substitute_variable(s);
  check_all(s, cs, "substitute_variable");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = 4*h + w, for {h,w})")) ==
        "L_{h:[0,3), f:[0,2), w:[0,4)} {L_{t1:[0,12), f:[0,2)} A[t1] * B[f]}[4*h + w, f]");
}

TEST_CASE("substitute_variable: the proof of Φ⁻¹ ∘ Φ = id") {
  auto s = shifted();
  // a valid Φ is accepted
  CHECK(derive::substitute(*s, {{{"t", idx("h") + idx("r")}}, {{"h", idx("t") - idx("r")}}, {"r", "t"}}));
  // t = h + r for both h and r drops a dimension: not injective
  CHECK_FALSE(derive::substitute(
      *s, {{{"t", idx("h") + idx("r")}}, {{"h", idx("t")}, {"r", affine(0)}}, {"t"}}));
  // t = h / 2 loses h's low bit
  CHECK_FALSE(derive::substitute(*s, {{{"t", idx("h").floordiv(2)}}, {{"h", idx("t") * 2}}, {"r", "t"}}));
  // a wrong inverse
  CHECK_FALSE(derive::substitute(*s, {{{"t", idx("h") + idx("r")}}, {{"h", idx("t") + idx("r")}}, {"r", "t"}}));
  // a new name that clashes, a summation iterator in Φ, a layout that forgets an iterator
  CHECK_FALSE(derive::substitute(*s, {{{"r", idx("h") + idx("r")}}, {{"h", idx("r")}}, {"r"}}));
  auto m = matmul(2, 3, 4);
  CHECK_FALSE(derive::substitute(*m, {{{"t", idx("i") + idx("k")}}, {{"i", idx("t") - idx("k")}}, {"j", "t"}}));
  CHECK_FALSE(derive::substitute(*s, {{{"t", idx("h") + idx("r")}}, {{"h", idx("t") - idx("r")}}, {"t"}}));
}

TEST_CASE("substitute_variable: the proof sees through / and % with ranges") {
  auto a = input("A", {30});
  auto s = make_scope({{"x", 0, 30}}, {}, make_access(a, {idx("x")}));
  // split by 4 (does not divide 30): t2 = x % 4 is in [0,4), t1 = x / 4 in [0,8)
  auto r = derive::substitute(
      *s, {{{"p", idx("x").floordiv(4)}, {"q", idx("x").mod(4)}}, {{"x", idx("p") * 4 + idx("q")}}, {"p", "q"}});
  REQUIRE(r);
  CHECK(to_string(**r) == "L_{x:[0,30)} {L_{p:[0,8), q:[0,4)} A[4*p + q]}[x / 4, x % 4]");
  CHECK(same_values(s, *r));
}

TEST_CASE("substitute_variable: precondition: no proposal without a fitting index") {
  // t = 2*h + 2*r is injective with r kept but fills only half of its bounding box: not proposed
  auto s = make_scope({{"h", 0, 4}, {"f", 0, 2}, {"r", 0, 3}}, {},
                      make_access(input("A", {14}), {idx("h") * 2 + idx("r") * 2}) *
                          make_access(input("B", {2}), {idx("f")}));
  CHECK(derive::substitute_variable(s).empty());
  // indices over summation iterators are not traversal substitutions
  auto m = make_scope({{"i", 0, 4}}, {{"k", 0, 3}}, make_access(input("A", {7}), {idx("i") + idx("k")}));
  CHECK(derive::substitute_variable(m).empty());
  // a plain matmul reads no combined index and no adjacent pair together
  CHECK(derive::substitute_variable(matmul(2, 3, 4)).empty());
}

TEST_CASE("substitute_variable: fresh names avoid the scope's iterators") {
  auto s = make_scope({{"t1", 0, 3}, {"h", 0, 4}}, {{"t2", 0, 2}},
                      make_access(input("A", {6, 2}), {idx("h") + idx("t1"), idx("t2")}));
  auto cs = derive::substitute_variable(s);
  check_all(s, cs, "substitute_variable");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t3 = h + t1, for {h})")) ==
        "L_{t1:[0,3), h:[0,4)} {L_{t1:[0,3), t3:[0,6)} Σ_{t2:[0,2)} A[t3, t2]}[t1, h + t1]");
}

namespace {

// Dilated convolution without batch, dilation 2, padding 2: L_{h,w,f} Σ_{r,s,c}
// A[h + 2r - 2, w + 2s - 2, c] * K[r, s, f, c], with h, w in [0, 6)
scope_ptr dilated_conv() {
  return make_scope({{"h", 0, 6}, {"w", 0, 6}, {"f", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 2}},
                    make_access(input("A", {6, 6, 2}),
                                {idx("h") + idx("r") * 2 - 2, idx("w") + idx("s") * 2 - 2, idx("c")}) *
                        make_access(input("K", {3, 3, 2, 2}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

bool any_step_has(const std::vector<derive::candidate>& cs, const std::string& part) {
  return std::any_of(cs.begin(), cs.end(), [&](auto& c) { return derive::to_string(c.how).find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("substitute_variable: splitting by a dilation makes the band non-dilated") {
  // G2BMM, dilation 4: i + 4*w - 8 with i = 4*t2 + t1 reads 4*(t2 + w) + t1 - 8
  auto g = g2bmm(1, 8, 3, 2, 4);
  auto cs = derive::substitute_variable(g);
  check_all(g, cs, "substitute_variable");
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = i % 4, t2 = i / 4, for {i})")) ==
        "L_{b:[0,1), i:[0,8), w:[0,5)} {L_{b:[0,1), t1:[0,4), t2:[0,2), w:[0,5)} Σ_{k:[0,3)} "
        "A[b, t1 + 4*t2, k] * B[b, t1 + 4*t2 + 4*w - 8, k]}[b, i % 4, i / 4, w]");
  // a convolution of dilation 2 splits h (and w) by 2
  auto c = dilated_conv();
  auto ds = derive::substitute_variable(c);
  check_all(c, ds, "substitute_variable");
  CHECK(pick(ds, "substitute_variable(at /: t1 = h % 2, t2 = h / 2, for {h})"));
  CHECK(pick(ds, "substitute_variable(at /: t1 = w % 2, t2 = w / 2, for {w})"));
}

TEST_CASE("substitute_variable: precondition: no dilation split without a dividing factor") {
  // 4 does not divide |i| = 6
  auto g = g2bmm(1, 6, 3, 2, 4);
  auto cs = derive::substitute_variable(g);
  check_all(g, cs, "substitute_variable");
  CHECK_FALSE(any_step_has(cs, "% 4"));
  // no coefficient of 2 or more: no split at all
  CHECK_FALSE(any_step_has(derive::substitute_variable(conv(5, 3, 2, 3, 1)), "%"));
  CHECK_FALSE(any_step_has(derive::substitute_variable(shifted()), "%"));
}

TEST_CASE("substitute_variable: every candidate on every family equals its source") {
  for (auto& e : families()) check_all(e, derive::substitute_variable(e), "substitute_variable");
}

namespace {

// The inner scope of EinNet Figure 6 after splitting r and s by 3 and the summation:
// L_{r1,s1,n,h,w,f} Σ_{r2,s2,c} A[n, h + 3*r1 + r2 - 2, w + 3*s1 + s2 - 2, c] * K[3*r1 + r2, 3*s1 + s2, f, c]
scope_ptr split_conv(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f) {
  return make_scope({{"r1", 0, 2}, {"s1", 0, 2}, {"n", 0, n}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}},
                    {{"r2", 0, 3}, {"s2", 0, 3}, {"c", 0, c}},
                    make_access(input("A", {n, hw, hw, c}),
                                {idx("n"), idx("h") + idx("r1") * 3 + idx("r2") - 2,
                                 idx("w") + idx("s1") * 3 + idx("s2") - 2, idx("c")}) *
                        make_access(input("K", {5, 5, f, c}),
                                    {idx("r1") * 3 + idx("r2"), idx("s1") * 3 + idx("s2"), idx("f"), idx("c")}));
}

}  // namespace

TEST_CASE("substitute_variable: the traversal part of an index that also reads summation iterators") {
  auto s = split_conv(2, 4, 2, 3);
  auto cs = derive::substitute_variable(s);
  check_all(s, cs, "substitute_variable");
  // both parts at once; the layout groups each operand's iterators: A's (n, t1, t2), K's (r1, s1, f)
  CHECK(to_string(*pick(cs, "substitute_variable(at /: t1 = h + 3*r1, t2 = 3*s1 + w, for {h,w})")) ==
        "L_{r1:[0,2), s1:[0,2), n:[0,2), h:[0,4), w:[0,4), f:[0,3)} "
        "{L_{n:[0,2), t1:[0,7), t2:[0,7), r1:[0,2), s1:[0,2), f:[0,3)} Σ_{r2:[0,3), s2:[0,3), c:[0,2)} "
        "A[n, r2 + t1 - 2, s2 + t2 - 2, c] * K[3*r1 + r2, 3*s1 + s2, f, c]}[n, h + 3*r1, 3*s1 + w, r1, s1, f]");
  // each part alone
  CHECK(pick(cs, "substitute_variable(at /: t1 = h + 3*r1, for {h})"));
  CHECK(pick(cs, "substitute_variable(at /: t1 = 3*s1 + w, for {w})"));
  // families of sizes
  for (std::int64_t n : {1, 2})
    for (std::int64_t hw : {3, 5}) {
      auto t = split_conv(n, hw, 1, 2);
      check_all(t, derive::substitute_variable(t), "substitute_variable");
    }
}

TEST_CASE("substitute_variable: precondition: a traversal part needs two traversal iterators") {
  // h + r with r summed: the part h alone is no change of basis
  auto m = make_scope({{"i", 0, 4}}, {{"k", 0, 3}}, make_access(input("A", {7}), {idx("i") + idx("k")}));
  CHECK(derive::substitute_variable(m).empty());
  // 2*h + 2*j + k: no traversal iterator of coefficient ±1 to replace
  auto e = make_scope({{"h", 0, 3}, {"j", 0, 2}}, {{"k", 0, 2}},
                      make_access(input("A", {12}), {idx("h") * 2 + idx("j") * 2 + idx("k")}));
  CHECK_FALSE(any_step_has(derive::substitute_variable(e), "2*h + 2*j"));
}

}  // namespace rules_substitute_variable_test
