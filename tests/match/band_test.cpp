// G2BMM and GBMM matching over generated layouts, widths and dilations, checked by band loops.
#include <doctest/doctest.h>

#include "match/check.hpp"

namespace band_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

namespace {

expr access_in_order(const std::string& name, const std::vector<int>& perm,
                     std::vector<std::int64_t> shape, std::vector<affine> index) {
  return make_access(f32(name, permute(shape, perm)), permute(index, perm));
}

}  // namespace

TEST_CASE("g2bmm and gbmm: every dimension order, widths, dilations, operand order") {
  const std::int64_t Bt = 2, M = 7, F = 3;
  int checked = 0;
  for (std::int64_t W : {1, 2})
    for (std::int64_t D : {1, 3})
      for (auto& pa : permutations(3))
        for (auto& pb : permutations(3))
          for (auto& po : std::vector<std::vector<int>>{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}})
            for (bool g2 : {true, false}) {
              std::int64_t span = 2 * W + 1;
              auto row = idx("m") + (idx("w") - W) * D;
              expr a, b;
              std::vector<iterator> trav, sum;
              if (g2) {  // O[b,m,w] = Σ_k A[b,m,k] · B[b, m + D(w − W), k]
                a = access_in_order("A", pa, {Bt, M, F}, {idx("b"), idx("m"), idx("k")});
                b = access_in_order("B", pb, {Bt, M, F}, {idx("b"), row, idx("k")});
                trav = permute<iterator>({{"b", 0, Bt}, {"m", 0, M}, {"w", 0, span}}, po);
                sum = {{"k", 0, F}};
              } else {  // O[b,m,n] = Σ_w A[b,m,w] · B[b, m + D(w − W), n]
                a = access_in_order("A", pa, {Bt, M, span}, {idx("b"), idx("m"), idx("w")});
                b = access_in_order("B", pb, {Bt, M, F}, {idx("b"), row, idx("n")});
                trav = permute<iterator>({{"b", 0, Bt}, {"m", 0, M}, {"n", 0, F}}, po);
                sum = {{"w", 0, span}};
              }
              auto s = make_scope(trav, sum, checked % 2 ? b * a : a * b);
              auto i = expect_match(*s, g2 ? op_kind::g2bmm : op_kind::gbmm);
              CHECK(i.band().width == W);
              CHECK(i.band().dilation == D);
              CHECK(i.band().m == M);
              CHECK(i.band().batch == Bt);
              CHECK(i.band().features == F);
              ++checked;
            }
  CHECK(checked == 2 * 2 * 36 * 3 * 2);
}

TEST_CASE("g2bmm: Longformer's dilated band, scaled down, and near misses") {
  auto s = operators::g2bmm_canonical({{"b", 2}, {"m", 40}, {"k", 4}, {"W", 3}, {"D", 4}});
  auto i = expect_match(*s, op_kind::g2bmm);
  CHECK(i.band().dilation == 4);
  CHECK(i.flops == 2.0 * 2 * 40 * 7 * 4);
  auto A = f32("A", {2, 9, 3}), B = f32("B", {2, 9, 3});
  auto a = make_access(A, {idx("b"), idx("m"), idx("k")});
  std::vector<iterator> trav{{"b", 0, 2}, {"m", 0, 9}, {"w", 0, 5}};
  std::vector<iterator> k{{"k", 0, 3}};
  auto none = [](const scope_ptr& e) { expect_no_match(*e, op_kind::g2bmm); };
  // the band off centre: m + D(w − W) + 1
  none(make_scope(trav, k, a * make_access(B, {idx("b"), idx("m") + idx("w") * 2 - 3, idx("k")})));
  // an even band width
  none(make_scope({{"b", 0, 2}, {"m", 0, 9}, {"w", 0, 4}}, k,
                  a * make_access(B, {idx("b"), idx("m") + idx("w") - 2, idx("k")})));
  // B's sequence longer than m: its end is not the band's end
  none(make_scope(
      trav, k,
      a * make_access(f32("B", {2, 12, 3}), {idx("b"), idx("m") + (idx("w") - 2) * 2, idx("k")})));
  // m scaled in the band
  none(make_scope({{"b", 0, 2}, {"m", 0, 4}, {"w", 0, 5}}, k,
                  make_access(A, {idx("b"), idx("m"), idx("k")}) *
                      make_access(B, {idx("b"), idx("m") * 2 + idx("w") - 2, idx("k")})));
}

}  // namespace band_test
