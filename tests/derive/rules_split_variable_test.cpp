// Variable splitting of summation iterators: splits by divisors, the relaxation to the next size
// with one (proven over padding), families of convolutions, and the refusals.
#include "rules_support.hpp"

#include <set>

#include "ein/derive/split_variable.hpp"

namespace rules_split_variable_test {

using namespace rules_test;

namespace {

// L_{i:[0,n)} Σ_{r:[0,k)} A[i + r] * W[r]  (a 1-D correlation; reads of A past n are padding)
scope_ptr correlation(std::int64_t n, std::int64_t k) {
  return make_scope({{"i", 0, n}}, {{"r", 0, k}},
                    make_access(input("A", {n}), {idx("i") + idx("r")}) * make_access(input("W", {k}), {idx("r")}));
}

bool has(const std::vector<derive::candidate>& cs, const std::string& how) {
  for (auto& c : cs)
    if (derive::to_string(c.how) == how) return true;
  return false;
}

}  // namespace

TEST_CASE("split_variable: proper divisors and split sizes") {
  CHECK(derive::proper_divisors(6) == std::vector<std::int64_t>{2, 3});
  CHECK(derive::proper_divisors(7).empty());
  CHECK(derive::split_size(3) == 0);   // prime and too small to relax
  CHECK(derive::split_size(4) == 4);
  CHECK(derive::split_size(5) == 6);   // Conv5x5 → 6
  CHECK(derive::split_size(9) == 9);
  CHECK(derive::split_size(13) == 14);
  CHECK(derive::split_size(16) == 16);
  CHECK(derive::split_size(17) == 0);  // past max_split_extent
}

TEST_CASE("split_variable: a composite extent splits by each divisor, no relaxation") {
  auto s = correlation(4, 6);
  auto cs = derive::split_variable(s);
  check_all(s, cs, "split_variable");
  REQUIRE(cs.size() == 2);
  CHECK(to_string(*pick(cs, "split_variable(at /: Σ r = 2*r1 + r2)")) ==
        "L_{i:[0,4)} Σ_{r1:[0,3), r2:[0,2)} A[i + 2*r1 + r2] * W[2*r1 + r2]");
  CHECK(to_string(*pick(cs, "split_variable(at /: Σ r = 3*r1 + r2)")) ==
        "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * W[3*r1 + r2]");
}

TEST_CASE("split_variable: a prime extent relaxes to the next size over padding (Conv5x5 → 6x6 → 2·3)") {
  auto s = correlation(4, 5);
  auto cs = derive::split_variable(s);
  check_all(s, cs, "split_variable");
  CHECK(to_string(*pick(cs, "split_variable(at /: Σ r = 3*r1 + r2, relaxed r [0,5) → [0,6))")) ==
        "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * W[3*r1 + r2]");
  CHECK(has(cs, "split_variable(at /: Σ r = 2*r1 + r2, relaxed r [0,5) → [0,6))"));

  // both kernel iterators of a 2-D convolution, together, by each common divisor
  auto c = conv(6, 2, 3, 5, 2);
  auto ds = derive::split_variable(c);
  check_all(c, ds, "split_variable");
  CHECK(ds.size() == 2);
  CHECK(has(ds, "split_variable(at /: Σ r = 2*r1 + r2, s = 2*s1 + s2, relaxed r [0,5) → [0,6), s [0,5) → [0,6))"));
  CHECK(to_string(*pick(ds, "split_variable(at /: Σ r = 3*r1 + r2, s = 3*s1 + s2, relaxed r [0,5) → [0,6), s [0,5) → [0,6))")) ==
        "L_{h:[0,6), w:[0,6), f:[0,3)} Σ_{r1:[0,2), r2:[0,3), s1:[0,2), s2:[0,3), c:[0,2)} "
        "A[h + 3*r1 + r2 - 2, 3*s1 + s2 + w - 2, c] * K[3*r1 + r2, 3*s1 + s2, f, c]");
}

TEST_CASE("split_variable: families of convolutions and nested scopes equal their sources") {
  std::size_t checked = 0;
  for (std::int64_t k : {4, 5, 6, 7, 8, 9})
    for (std::int64_t hw : {k - 1, k + 2})
      for (std::int64_t pad : {std::int64_t{0}, k / 2}) {
        if (hw + 2 * pad - k + 1 <= 0) continue;
        auto c = conv(hw, 2, 2, k, pad);
        auto cs = derive::split_variable(c);
        INFO("k = ", k, ", hw = ", hw, ", pad = ", pad);
        check_all(c, cs, "split_variable");
        CHECK(!cs.empty());
        checked += cs.size();
        // inside a nested scope, with a negative lower bound (the stencil's padded copy)
        auto st = stencil(k + 1);
        auto nested = make_scope({{"j", 0, 3}}, {{"u", -1, k - 1}},
                                 make_access(st, {idx("j") + idx("u") + 1}) * make_access(input("V", {k}), {idx("u") + 1}));
        auto ns = derive::split_variable(nested);
        check_all(nested, ns, "split_variable");
        checked += ns.size();
      }
  CHECK(checked > 50);
  // a common divisor splits the iterators it divides, the others keep their range
  auto mixed = make_scope({{"i", 0, 3}}, {{"r", 0, 6}, {"s", 0, 4}},
                          make_access(input("A", {12}), {idx("i") + idx("r") + idx("s")}) *
                              make_access(input("W", {6, 4}), {idx("r"), idx("s")}));
  auto ms = derive::split_variable(mixed);
  check_all(mixed, ms, "split_variable");
  CHECK(to_string(*pick(ms, "split_variable(at /: Σ r = 2*r1 + r2, s = 2*s1 + s2)")) ==
        "L_{i:[0,3)} Σ_{r1:[0,3), r2:[0,2), s1:[0,2), s2:[0,2)} A[i + 2*r1 + r2 + 2*s1 + s2] * W[2*r1 + r2, 2*s1 + s2]");
  CHECK(has(ms, "split_variable(at /: Σ r = 3*r1 + r2)"));
  CHECK(ms.size() == 2);
  // one step further: every split, then every split of the result
  auto c = conv(5, 2, 2, 6, 1);
  for (auto& first : derive::split_variable(c)) {
    auto second = derive::split_variable(first.result);
    INFO("after ", derive::to_string(first.how));
    check_all(c, second, "split_variable");
  }
}

TEST_CASE("split_variable: precondition: the relaxed term would not be zero") {
  // A + W: the term r = 5 reads A inside its box
  auto a = input("A", {9}), w = input("W", {5});
  auto sum = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                        make_access(a, {idx("i") + idx("r")}) + make_access(w, {idx("r")}));
  CHECK(derive::split_variable(sum).empty());
  // sigmoid(W[r]) is 0.5 in W's padding
  auto sig = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                        make_access(a, {idx("i") + idx("r")}) * make_unary(unary_fn::sigmoid, make_access(w, {idx("r")})));
  CHECK(derive::split_variable(sig).empty());
  // a nested scope that holds non-zero values at r = 5 (its box is wider than W)
  auto wide = make_scope({{"t", 0, 6}}, {}, make_access(w, {idx("t")}) + make_constant(1));
  auto outside = make_scope({{"i", 0, 4}}, {{"r", 0, 5}},
                            make_access(a, {idx("i") + idx("r")}) * make_access(wide, {idx("r")}));
  CHECK(derive::split_variable(outside).empty());
  // but a composite extent splits whatever the body: no term is added
  auto six = make_scope({{"i", 0, 4}}, {{"r", 0, 6}},
                        make_access(a, {idx("i") + idx("r")}) + make_access(input("W6", {6}), {idx("r")}));
  auto cs = derive::split_variable(six);
  check_all(six, cs, "split_variable");
  CHECK(cs.size() == 2);
}

TEST_CASE("split_variable: precondition: small, large, or read alone") {
  CHECK(derive::split_variable(correlation(4, 3)).empty());   // 3: prime, too small to relax
  CHECK(derive::split_variable(correlation(4, 17)).empty());  // past max_split_extent
  CHECK(derive::split_variable(matmul(3, 4, 6)).empty());     // k read alone: only a reshape
  auto traversal_only = make_scope({{"i", 0, 6}, {"j", 0, 2}}, {},
                                   make_access(input("A", {8}), {idx("i") + idx("j")}));
  CHECK(derive::split_variable(traversal_only).empty());      // traversal iterators are not split here
}

TEST_CASE("split_variable: every family, steps distinct") {
  for (auto& e : families()) {
    auto cs = derive::split_variable(e);
    check_all(e, cs, "split_variable");
    std::set<std::string> steps;
    for (auto& c : cs) CHECK(steps.insert(derive::to_string(c.how)).second);
  }
}

}  // namespace rules_split_variable_test
