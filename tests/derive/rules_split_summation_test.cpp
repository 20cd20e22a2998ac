// Summation splitting: printed results, interpreter equality, and where it does not apply.
#include "rules_support.hpp"

#include "ein/derive/split_summation.hpp"

namespace rules_split_summation_test {

using namespace rules_test;

TEST_CASE("split_summation: Σ_{r,s,c} → Σ_{r,s} {L_{r,s,h,w,f} Σ_c}") {
  auto e1 = conv(5, 4, 4, 3, 1);
  auto cs = derive::split_summation(e1);
  CHECK(cs.size() == 6);  // 2^3 - 2 subsets
  check_all(e1, cs, "split_summation");
  auto e2 = pick(cs, "split_summation(at /: inner Σ {c}, outer Σ {r,s})");
  CHECK(to_string(*e2) ==
        "L_{h:[0,5), w:[0,5), f:[0,4)} Σ_{r:[0,3), s:[0,3)} "
        "{L_{r:[0,3), s:[0,3), h:[0,5), w:[0,5), f:[0,4)} Σ_{c:[0,4)} "
        "A[h + r - 1, s + w - 1, c] * K[r, s, f, c]}[r, s, h, w, f]");
}

TEST_CASE("split_summation: applies inside nested scopes") {
  auto e2 = pick(derive::split_summation(conv(4, 2, 2, 2, 0)), "split_summation(at /: inner Σ {r,c}, outer Σ {s})");
  auto cs = derive::split_summation(e2);
  check_all(e2, cs, "split_summation");
  auto inner = pick(cs, "split_summation(at /0: inner Σ {c}, outer Σ {r})");
  CHECK(to_string(*inner) ==
        "L_{h:[0,3), w:[0,3), f:[0,2)} Σ_{s:[0,2)} {L_{s:[0,2), h:[0,3), w:[0,3), f:[0,2)} "
        "Σ_{r:[0,2)} {L_{r:[0,2), s:[0,2), h:[0,3), w:[0,3), f:[0,2)} Σ_{c:[0,2)} "
        "A[h + r, s + w, c] * K[r, s, f, c]}[r, s, h, w, f]}[s, h, w, f]");
}

TEST_CASE("split_summation: every candidate on every family equals its source") {
  for (auto& e : families()) check_all(e, derive::split_summation(e), "split_summation");
}

TEST_CASE("split_summation: many summation iterators are capped deterministically") {
  std::vector<iterator> sum;
  expr body = make_constant(1.0);
  for (int i = 0; i < 7; ++i) {
    std::string n = "k" + std::to_string(i);
    sum.push_back({n, 0, 2});
    body = body * make_access(input("A" + std::to_string(i), {2}), {idx(n)});
  }
  auto s = make_scope({{"i", 0, 2}}, sum, body);
  auto cs = derive::split_summation(s);
  CHECK(cs.size() == 14);
  CHECK(derive::to_string(cs.front().how) == "split_summation(at /: inner Σ {k0}, outer Σ {k1,k2,k3,k4,k5,k6})");
}

TEST_CASE("split_summation: precondition: fewer than two summation iterators") {
  CHECK(derive::split_summation(matmul(2, 3, 4)).empty());
  CHECK(derive::split_summation(make_scope({{"i", 0, 3}}, {}, make_access(input("A", {3}), {idx("i")})))
            .empty());
}

}  // namespace rules_split_summation_test
