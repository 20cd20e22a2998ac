// EinNet Figure 6 step by step: Conv5x5 (NHWC, batch 2) relaxed to 6×6 and split into a Conv3x3
// with four times the output channels, read by an eOperator summing at offsets 3·r1, 3·s1.
#include "step_support.hpp"

#include <array>

#include "ein/match/match.hpp"

namespace figure6_test {

using namespace rules_test;

namespace {

// L_{n,h,w,f} Σ_{r,s,c} A[n, h + r − pad, w + s − pad, c] · K[r, s, f, c], K a weight
scope_ptr conv5x5(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f) {
  tensor K{"K", dtype::f32, {5, 5, f, c}, tensor_role::weight};
  return make_scope({{"n", 0, n}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}}, {{"r", 0, 5}, {"s", 0, 5}, {"c", 0, c}},
                    make_access(input("A", {n, hw, hw, c}), {idx("n"), idx("h") + idx("r") - 2, idx("w") + idx("s") - 2, idx("c")}) *
                        make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

// The scope at `where` in `root`.
scope_ptr at(const scope_ptr& root, const std::string& where) {
  scope_ptr found;
  derive::for_each_position(root, [&](const scope_ptr& s, const derive::path& p) {
    if (!found && derive::to_string(p) == where) found = s;
  });
  REQUIRE(found);
  return found;
}

// E1 → E6 for split factor `d` (3: r = 3·r1 + r2 and r2 stays the kernel iterator; 2:
// r = 2·r1 + r2 and r1 does, with dilation 2): the conv2d instances of the inner scope.
std::vector<match::instance> derive_figure6(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f,
                                            int d) {
  auto e1 = conv5x5(n, hw, c, f);
  std::string k = std::to_string(d);
  auto e2 = pick(run_rule("split_variable", e1), "split_variable(at /: Σ r = " + k + "*r1 + r2, s = " + k +
                                                     "*s1 + s2, relaxed r [0,5) → [0,6), s [0,5) → [0,6))");
  CHECK(same_values(e1, e2));
  bool by3 = d == 3;
  auto e3 = pick(run_rule("split_summation", e2),
                 by3 ? "split_summation(at /: inner Σ {r2,s2,c}, outer Σ {r1,s1})" : "split_summation(at /: inner Σ {r1,s1,c}, outer Σ {r2,s2})");
  auto e4 = pick(run_rule("substitute_variable", e3),
                 by3 ? "substitute_variable(at /0: t1 = h + 3*r1, t2 = 3*s1 + w, for {h,w})" : "substitute_variable(at /0: t1 = h + r2, t2 = s2 + w, for {h,w})");
  auto e5 = pick(run_rule("relayout_weight", e4), "relayout_weight(at /0/0: K[" + k + "*r1 + r2, " + k +
                                                      "*s1 + s2, f, c], over " +
                                                      (by3 ? "{r1,s1,f,r2,s2,c})" : "{r2,s2,f,r1,s1,c})"));
  auto e6 = pick(run_rule("merge_traversal", e5),
                 by3 ? "merge_traversal(at /: inline /0, read at [r1, s1, n, h, w, f])" : "merge_traversal(at /: inline /0, read at [r2, s2, n, h, w, f])");
  CHECK(same_values(e1, e6));
  auto inner = at(e6, "/0");
  std::vector<match::instance> convs;
  for (auto& i : match::match(*inner))
    if (i.kind == match::op_kind::conv2d) convs.push_back(i);
  return convs;
}

}  // namespace

TEST_CASE("EinNet Figure 6: Conv5x5 → Conv6x6 → Conv3x3 with 4× output channels + OffsetReduce") {
  auto e1 = conv5x5(2, 6, 2, 3);
  MESSAGE("E1:\n    " << to_string(*e1));
  CHECK(to_string(*e1) ==
        "L_{n:[0,2), h:[0,6), w:[0,6), f:[0,3)} Σ_{r:[0,5), s:[0,5), c:[0,2)} "
        "A[n, h + r - 2, s + w - 2, c] * K[r, s, f, c]");
  // relaxed to 6×6 over K's padding and split by 3 in one step
  auto e2 = step("E2", e1, "split_variable",
                 "split_variable(at /: Σ r = 3*r1 + r2, s = 3*s1 + s2, relaxed r [0,5) → [0,6), s [0,5) → [0,6))");
  CHECK(to_string(*e2) ==
        "L_{n:[0,2), h:[0,6), w:[0,6), f:[0,3)} Σ_{r1:[0,2), r2:[0,3), s1:[0,2), s2:[0,3), c:[0,2)} "
        "A[n, h + 3*r1 + r2 - 2, 3*s1 + s2 + w - 2, c] * K[3*r1 + r2, 3*s1 + s2, f, c]");
  auto e3 = step("E3", e2, "split_summation", "split_summation(at /: inner Σ {r2,s2,c}, outer Σ {r1,s1})");
  auto e4 = step("E4", e3, "substitute_variable", "substitute_variable(at /0: t1 = h + 3*r1, t2 = 3*s1 + w, for {h,w})");
  auto e5 = step("E5", e4, "relayout_weight", "relayout_weight(at /0/0: K[3*r1 + r2, 3*s1 + s2, f, c], over {r1,s1,f,r2,s2,c})");
  auto e6 = step("E6", e5, "merge_traversal", "merge_traversal(at /: inline /0, read at [r1, s1, n, h, w, f])");
  // a Conv3x3 over A and the relaid-out 6×6 kernel, output channels (r1, s1, f), read by an
  // OffsetReduce at h + 3·r1, w + 3·s1
  CHECK(to_string(*e6) ==
        "L_{n:[0,2), h:[0,6), w:[0,6), f:[0,3)} Σ_{r1:[0,2), s1:[0,2)} "
        "{L_{n:[0,2), t1:[0,9), t2:[0,9), r1:[0,2), s1:[0,2), f:[0,3)} Σ_{r2:[0,3), s2:[0,3), c:[0,2)} "
        "A[n, r2 + t1 - 2, s2 + t2 - 2, c] * "
        "{L_{r1:[0,2), s1:[0,2), f:[0,3), r2:[0,3), s2:[0,3), c:[0,2)} K[3*r1 + r2, 3*s1 + s2, f, c]}"
        "[r1, s1, f, r2, s2, c]}[n, h + 3*r1, 3*s1 + w, r1, s1, f]");
  auto convs = match::match(*at(e6, "/0"));
  REQUIRE(!convs.empty());
  CHECK(convs.front().str() ==
        "conv2d(x=A+0, w=<scope>+0) n=2 c=2 hw=6x6 k=12 rs=3x3 pq=9x9 pad=2,2 pad_end=3,3 stride=1,1 "
        "dilation=1,1 nhwc/krsc strides=(72,1,12,2)(18,1,6,2)(972,1,108,12)");
}

TEST_CASE("EinNet Figure 6 at other sizes: the inner scope is a Conv3x3 with 4f channels (dilation 2 for a split by 2)") {
  for (auto [n, hw, c, f] : {std::array<std::int64_t, 4>{1, 6, 2, 3}, {2, 5, 3, 2}, {3, 8, 1, 1}})
    for (int d : {3, 2}) {
      INFO("n = ", n, ", hw = ", hw, ", c = ", c, ", f = ", f, ", split by ", d);
      auto convs = derive_figure6(n, hw, c, f, d);
      REQUIRE(!convs.empty());
      auto& a = convs.front().conv();
      CHECK(a.r == 3);
      CHECK(a.s == 3);
      CHECK(a.k == 4 * f);
      CHECK(a.c == c);
      CHECK(a.dilation_h == (d == 3 ? 1 : 2));
    }
}

}  // namespace figure6_test
