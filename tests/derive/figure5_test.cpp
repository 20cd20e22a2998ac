// EinNet Figure 5 step by step: Conv3x3 (NHWC, H = W = 5, C = F = 4) to a Matmul and an
// OffsetReduce, each step picked by rule and step text and checked against the interpreter.
#include "step_support.hpp"

namespace figure5_test {

using namespace rules_test;

TEST_CASE("EinNet Figure 5: Conv3x3 → Matmul + OffsetReduce") {
  auto e1 = conv(5, 4, 4, 3, 1);
  MESSAGE("E1:\n    " << to_string(*e1));
  CHECK(to_string(*e1) ==
        "L_{h:[0,5), w:[0,5), f:[0,4)} Σ_{r:[0,3), s:[0,3), c:[0,4)} "
        "A[h + r - 1, s + w - 1, c] * K[r, s, f, c]");

  auto e2 = step("E2", e1, "split_summation", "split_summation(at /: inner Σ {c}, outer Σ {r,s})");
  // in ein's box IR the substitution computes over the bounding box of (h + r - 1, s + w - 1),
  // [-1, 6) × [-1, 6): EinNet's E3 (ranges [r, H + r), not a box) relaxed to its E4 in one step
  auto e4 = step("E3/E4", e2, "substitute_variable", "substitute_variable(at /0: t1 = h + r - 1, t2 = s + w - 1, for {h,w})");
  CHECK(to_string(*e4) ==
        "L_{h:[0,5), w:[0,5), f:[0,4)} Σ_{r:[0,3), s:[0,3)} "
        "{L_{r:[0,3), s:[0,3), h:[0,5), w:[0,5), f:[0,4)} "
        "{L_{r:[0,3), s:[0,3), f:[0,4), t1:[-1,6), t2:[-1,6)} Σ_{c:[0,4)} A[t1, t2, c] * K[r, s, f, c]}"
        "[r, s, f, h + r - 1, s + w - 1]}[r, s, h, w, f]");

  auto e5 = step("E5", e4, "merge_traversal", "merge_traversal(at /: inline /0, read at [r, s, h, w, f])");
  auto e6 = step("E6", e5, "tighten_boundary", "tighten_boundary(at /0: t1 [-1,6) → [0,5), t2 [-1,6) → [0,5))");
  // E6: an OffsetReduce over a Matmul of (t1 t2) × c by c × (r s f)
  CHECK(to_string(*e6) ==
        "L_{h:[0,5), w:[0,5), f:[0,4)} Σ_{r:[0,3), s:[0,3)} "
        "{L_{r:[0,3), s:[0,3), f:[0,4), t1:[0,5), t2:[0,5)} Σ_{c:[0,4)} A[t1, t2, c] * K[r, s, f, c]}"
        "[r, s, f, h + r - 1, s + w - 1]");

  // relaxing is the inverse step: E6 back to E5's common box [-1, 6)
  auto back = step("E5 again", e6, "relax_boundary", "relax_boundary(at /0: t1 [0,5) → [-1,6), t2 [0,5) → [-1,6))");
  CHECK(to_string(*back) == to_string(*e5));
}

TEST_CASE("EinNet Figure 5 path at other sizes and kernels: every step stays equal") {
  for (auto [hw, k, pad] : {std::tuple{6, 3, 1}, {7, 5, 2}, {5, 2, 0}, {4, 1, 0}}) {
    auto e1 = conv(hw, 3, 2, k, pad);
    auto e2 = pick(run_rule("split_summation", e1), "split_summation(at /: inner Σ {c}, outer Σ {r,s})");
    std::string subst = "substitute_variable(at /0: t1 = " + (idx("h") + idx("r") - pad).str() +
                        ", t2 = " + (idx("s") + idx("w") - pad).str() + ", for {h,w})";
    auto e4 = pick(run_rule("substitute_variable", e2), subst);
    auto e5 = pick(run_rule("merge_traversal", e4), "merge_traversal(at /: inline /0, read at [r, s, h, w, f])");
    CHECK(same_values(e1, e2));
    CHECK(same_values(e1, e4));
    CHECK(same_values(e1, e5));
    for (auto& c : run_rule("tighten_boundary", e5)) CHECK(same_values(e1, c.result));
  }
}

}  // namespace figure5_test
