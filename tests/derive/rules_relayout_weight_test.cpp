// Weight relayout: a weight read through a non-trivial index becomes a nested scope; plain
// reads, activations and existing copies are left alone.
#include "rules_support.hpp"

#include "ein/derive/relayout_weight.hpp"
#include "ein/derive/split_variable.hpp"

namespace rules_relayout_weight_test {

using namespace rules_test;

namespace {

tensor weight(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::weight};
}

// Conv k×k (NHWC without batch) whose filter is a weight.
scope_ptr weight_conv(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k, std::int64_t pad) {
  std::int64_t out = hw + 2 * pad - k + 1;
  return make_scope({{"h", 0, out}, {"w", 0, out}, {"f", 0, f}}, {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(input("A", {hw, hw, c}), {idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                        make_access(weight("K", {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

}  // namespace

TEST_CASE("relayout_weight: a split filter becomes a weight-only scope over the iterators it reads") {
  auto a = input("A", {6}), k = weight("K", {5});
  auto s = make_scope({{"i", 0, 4}}, {{"r1", 0, 2}, {"r2", 0, 3}},
                      make_access(a, {idx("i") + idx("r1") * 3 + idx("r2")}) * make_access(k, {idx("r1") * 3 + idx("r2")}));
  auto cs = derive::relayout_weight(s);
  check_all(s, cs, "relayout_weight");
  REQUIRE(cs.size() == 1);
  CHECK(to_string(*pick(cs, "relayout_weight(at /: K[3*r1 + r2], over {r1,r2})")) ==
        "L_{i:[0,4)} Σ_{r1:[0,2), r2:[0,3)} A[i + 3*r1 + r2] * {L_{r1:[0,2), r2:[0,3)} K[3*r1 + r2]}[r1, r2]");
}

TEST_CASE("relayout_weight: reads outside the filter's box (a relaxed kernel) give a padded copy") {
  auto c = weight_conv(5, 2, 2, 5, 2);
  auto relaxed = make_scope(c->traversal, {{"r", 0, 6}, {"s", 0, 6}, {"c", 0, 2}}, c->body);
  auto cs = derive::relayout_weight(relaxed);
  check_all(relaxed, cs, "relayout_weight");
  CHECK(to_string(*pick(cs, "relayout_weight(at /: K[r, s, f, c], over {f,r,s,c})")) ==
        "L_{h:[0,5), w:[0,5), f:[0,2)} Σ_{r:[0,6), s:[0,6), c:[0,2)} A[h + r - 2, s + w - 2, c] * "
        "{L_{f:[0,2), r:[0,6), s:[0,6), c:[0,2)} K[r, s, f, c]}[f, r, s, c]");
  // the copy is the end: nothing to relay out inside it, and the plain read of it is not a weight
  for (auto& d : derive::relayout_weight(cs.front().result)) FAIL("relaid out again: " << derive::to_string(d.how));
}

TEST_CASE("relayout_weight: families of split convolutions, relaid out at every position") {
  std::size_t checked = 0;
  for (std::int64_t k : {4, 5, 6, 7, 8, 9})
    for (std::int64_t pad : {std::int64_t{0}, k / 2}) {
      auto c = weight_conv(k + 1, 2, 2, k, pad);
      CHECK(derive::relayout_weight(c).empty());  // K[r, s, f, c] is plain
      for (auto& split : derive::split_variable(c)) {
        auto cs = derive::relayout_weight(split.result);
        INFO("k = ", k, ", pad = ", pad, ", after ", derive::to_string(split.how));
        check_all(c, cs, "relayout_weight");
        CHECK(cs.size() == 1);
        checked += cs.size();
      }
    }
  CHECK(checked >= 20);
  // inside a nested scope: the weight read by the nested scope is relaid out there
  auto w = weight("W", {4, 3});
  auto inner = make_scope({{"p", 0, 2}, {"j", 0, 3}}, {{"q", 0, 2}},
                          make_access(w, {idx("p") * 2 + idx("q"), idx("j")}) * make_access(input("B", {2}), {idx("q")}));
  auto outer = make_scope({{"i", 0, 2}}, {{"j", 0, 3}}, make_access(inner, {idx("i"), idx("j")}));
  auto cs = derive::relayout_weight(outer);
  check_all(outer, cs, "relayout_weight");
  CHECK(to_string(*pick(cs, "relayout_weight(at /0: W[2*p + q, j], over {p,j,q})")) ==
        "L_{i:[0,2)} Σ_{j:[0,3)} {L_{p:[0,2), j:[0,3)} Σ_{q:[0,2)} "
        "{L_{p:[0,2), j:[0,3), q:[0,2)} W[2*p + q, j]}[p, j, q] * B[q]}[i, j]");
}

TEST_CASE("relayout_weight: precondition: plain reads, activations, existing copies") {
  // a transposed, shifted, in-box read is plain: an operator reads it through strides
  auto w = weight("W", {4, 3});
  auto plain = make_scope({{"i", 0, 3}, {"j", 0, 3}}, {}, make_access(w, {idx("j") + 1, idx("i")}));
  CHECK(derive::relayout_weight(plain).empty());
  // an input is not known before run time: its relayout is not free
  auto act = make_scope({{"i", 0, 2}}, {{"q", 0, 2}}, make_access(input("X", {4}), {idx("i") * 2 + idx("q")}));
  CHECK(derive::relayout_weight(act).empty());
  // a scope that already is the copy
  auto copy = make_scope({{"i", 0, 2}, {"q", 0, 2}}, {}, make_access(w, {idx("i") * 2 + idx("q"), idx("i")}));
  CHECK(derive::relayout_weight(copy).empty());
  // but the same read under a sum, or in another order, is relaid out
  auto summed = make_scope({{"i", 0, 2}}, {{"q", 0, 2}}, make_access(w, {idx("i") * 2 + idx("q"), idx("i")}));
  auto cs = derive::relayout_weight(summed);
  check_all(summed, cs, "relayout_weight");
  CHECK(cs.size() == 1);
}

TEST_CASE("relayout_weight: equal accesses are relaid out together, distinct ones apart") {
  auto w = weight("W", {6});
  auto s = make_scope({{"i", 0, 3}}, {{"q", 0, 2}},
                      make_access(w, {idx("i") * 2 + idx("q")}) * make_access(w, {idx("i") * 2 + idx("q")}) +
                          make_access(w, {idx("q") * 3 + idx("i")}));
  auto cs = derive::relayout_weight(s);
  check_all(s, cs, "relayout_weight");
  REQUIRE(cs.size() == 2);
  CHECK(to_string(*cs[0].result) ==
        "L_{i:[0,3)} Σ_{q:[0,2)} {L_{i:[0,3), q:[0,2)} W[2*i + q]}[i, q] * {L_{i:[0,3), q:[0,2)} W[2*i + q]}[i, q] + W[i + 3*q]");
}

}  // namespace rules_relayout_weight_test
