// The rules on max and min scopes: the ones proven for a max apply and keep its value, the others
// leave it alone (docs/decisions/0008).
#include "rules_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/relax_boundary.hpp"
#include "ein/derive/relayout_weight.hpp"
#include "ein/derive/split_summation.hpp"
#include "ein/derive/split_variable.hpp"
#include "ein/derive/tighten_boundary.hpp"
#include "ein/ir/canonical.hpp"

namespace rules_max_test {

using namespace rules_test;

namespace {

// 2-D pooling window over A (no batch, no channel): `pad` points each side, stride `stride`.
scope_ptr pool(std::int64_t hw, std::int64_t k, std::int64_t stride, std::int64_t pad, reduction r) {
  std::int64_t out = (hw + 2 * pad - k) / stride + 1;
  return make_scope({{"h", 0, out}, {"w", 0, out}}, {{"r", 0, k}, {"s", 0, k}},
                    make_access(input("A", {hw, hw}),
                                {stride * idx("h") + idx("r") - pad, stride * idx("w") + idx("s") - pad}),
                    r);
}

bool has_canonical(const std::vector<derive::candidate>& cs, const scope& s) {
  return std::any_of(cs.begin(), cs.end(), [&](auto& c) { return equivalent_form(*c.result, s); });
}

}  // namespace

TEST_CASE("max rules: a max or min splits into a max of maxes, and merges back") {
  for (auto r : {reduction::max, reduction::min})
    for (auto [hw, k, stride, pad] : {std::tuple{5, 3, 2, 1}, {4, 2, 1, 1}, {6, 5, 1, 2}}) {
      auto source = pool(hw, k, stride, pad, r);
      auto split = derive::split_summation(source);
      REQUIRE(split.size() == 2);
      check_all(source, split, "split_summation");
      for (auto& c : split) {
        CHECK(c.result->reduce == r);
        // the outer reads its inner scope, which is the same reduction
        auto& inner = std::get<scope_ptr>(std::get<ir::access>(*c.result->body).source);
        CHECK(inner->reduce == r);
        auto merged = derive::merge_traversal(c.result);
        check_all(c.result, merged, "merge_traversal");
        CHECK(has_canonical(merged, *source));
      }
    }
}

TEST_CASE("max rules: boundary rules, weight relayout and relaxed splits leave a max alone") {
  // the same windows as sums: the rules apply there, so the refusals below are the max's
  auto K = tensor{"K", dtype::f32, {5}, tensor_role::weight};
  // K[t] is 0 at the t = 5 a split by 2 or 3 adds; K[2t] is no plain view (a relayout's case)
  auto windowed = [&](reduction r, affine weight_index = idx("t")) {
    return make_scope({{"i", 0, 6}}, {{"t", 0, 5}},
                      make_access(input("A", {6}), {idx("i") + idx("t") - 2}) * make_access(K, {weight_index}),
                      r);
  };
  auto nested = [&](reduction outer, reduction inner) {
    auto n = make_scope({{"t", -1, 6}}, {}, make_access(input("A", {5}), {idx("t")}), inner);
    return make_scope({{"i", 0, 7}}, {{"k", 0, 2}}, make_access(n, {idx("i") + idx("k") - 1}), outer);
  };
  CHECK_FALSE(derive::split_variable(windowed(reduction::sum)).empty());
  CHECK_FALSE(derive::relayout_weight(windowed(reduction::sum, 2 * idx("t"))).empty());
  CHECK_FALSE(derive::tighten_boundary(nested(reduction::sum, reduction::sum)).empty());
  CHECK_FALSE(derive::relax_boundary(nested(reduction::sum, reduction::sum)).empty());
  for (auto r : {reduction::max, reduction::min}) {
    CHECK(derive::split_variable(windowed(r)).empty());  // 5 relaxes to 6: an added point
    CHECK(derive::relayout_weight(windowed(r, 2 * idx("t"))).empty());
    for (auto [outer, inner] : {std::pair{r, reduction::sum}, {reduction::sum, r}, {r, r}}) {
      auto s = nested(outer, inner);
      INFO(to_string(*s));
      CHECK(derive::tighten_boundary(s).empty());
      CHECK(derive::relax_boundary(s).empty());
    }
  }
}

TEST_CASE("max rules: traversal merging inlines a max only into the same max, read inside") {
  auto A = input("A", {8});
  auto copy = [&](reduction inner_reduce, std::int64_t lo) {
    return make_scope({{"t", lo, 8}}, {{"u", 0, 2}}, make_access(A, {idx("t") + idx("u")}), inner_reduce);
  };
  // max_k {L_t max_u A[t + u]}[i + k], read inside: merges into max_{k,u} A[i + k + u]
  auto inside = make_scope({{"i", 0, 6}}, {{"k", 0, 2}}, make_access(copy(reduction::max, 0), {idx("i") + idx("k")}),
                           reduction::max);
  auto merged = derive::merge_traversal(inside);
  REQUIRE(merged.size() == 1);
  check_all(inside, merged, "merge_traversal");
  // refused: a min into a max, a sum into a max, a max into a sum, a read that may leave the box,
  // and a max under a product
  auto min_into_max = make_scope(inside->traversal, inside->summation,
                                 make_access(copy(reduction::min, 0), {idx("i") + idx("k")}), reduction::max);
  auto sum_into_max = make_scope(inside->traversal, inside->summation,
                                 make_access(copy(reduction::sum, 0), {idx("i") + idx("k")}), reduction::max);
  auto max_into_sum = make_scope(inside->traversal, inside->summation,
                                 make_access(copy(reduction::max, 0), {idx("i") + idx("k")}));
  auto leaves = make_scope(inside->traversal, inside->summation,
                           make_access(copy(reduction::max, 1), {idx("i") + idx("k")}), reduction::max);
  auto product = make_scope(inside->traversal, inside->summation,
                            make_access(copy(reduction::max, 0), {idx("i") + idx("k")}) * make_constant(2),
                            reduction::max);
  for (auto& s : {min_into_max, sum_into_max, max_into_sum, leaves, product}) {
    INFO(to_string(*s));
    CHECK(derive::merge_traversal(s).empty());
  }
  // the sum into a sum of the same shape does merge: the refusals are the max's
  auto sums = make_scope(inside->traversal, inside->summation,
                         make_access(copy(reduction::sum, 0), {idx("i") + idx("k")}));
  CHECK(derive::merge_traversal(sums).size() == 1);
}

TEST_CASE("max rules: every rule keeps a max pooling window's value") {
  for (auto r : {reduction::max, reduction::min})
    for (auto& rule : derive::intra_rules()) {
      auto source = pool(7, 3, 2, 1, r);
      check_all(source, rule.apply(source), rule.name);
    }
}

}  // namespace rules_max_test
