// Matmul and BatchMatmul matching over generated layouts, checked by a strided GEMM loop.
#include <doctest/doctest.h>

#include "match/check.hpp"

namespace gemm_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

TEST_CASE("matmul: every dimension order, traversal order, operand order and offset") {
  int cases = 0;
  for (auto [M, N, K] :
       {std::tuple<std::int64_t, std::int64_t, std::int64_t>{3, 4, 5}, {1, 6, 2}, {5, 1, 3}})
    for (int a_t : {0, 1})
      for (int b_t : {0, 1})
        for (int o_t : {0, 1})
          for (int swap : {0, 1})
            for (std::int64_t off : {0, 2}) {
              // A is read at [m + off, k] (or transposed) inside a tensor `off` rows larger.
              auto A = f32("A", a_t ? std::vector{K, M + off} : std::vector{M + off, K});
              auto B = f32("B", b_t ? std::vector{N, K} : std::vector{K, N});
              auto am = idx("m") + off;
              auto a = make_access(
                  A, a_t ? std::vector<affine>{idx("k"), am} : std::vector<affine>{am, idx("k")});
              auto b = make_access(B, b_t ? std::vector<affine>{idx("n"), idx("k")}
                                          : std::vector<affine>{idx("k"), idx("n")});
              std::vector<iterator> trav{{"m", 0, M}, {"n", 0, N}};
              if (o_t) std::swap(trav[0], trav[1]);
              auto s = make_scope(trav, {{"k", 0, K}}, swap ? b * a : a * b);
              auto i = expect_match(*s, op_kind::matmul);
              auto& g = i.gemm();
              CHECK(g.k == K);
              CHECK(g.m * g.n == M * N);
              if (!o_t && M > 1 && N > 1 && K > 1) {
                CHECK(g.trans_a == static_cast<bool>(a_t));
                CHECK(g.trans_b == static_cast<bool>(b_t));
                CHECK(g.lda == (a_t ? M + off : K));
                CHECK(i.inputs[0].offset == (a_t ? off : off * K));
              }
              ++cases;
            }
  CHECK(cases == 96);
}

TEST_CASE("matmul: merged groups, iterators with non-zero lower bounds, alpha") {
  // m = (t1, t2), n = (r, f): A'[m, k] = A[t1, t2, c] and K'[k, n] = K[r, f, c] (EinNet eq. 2-3).
  for (std::int64_t T1 : {2, 3})
    for (std::int64_t T2 : {3, 4}) {
      auto A = f32("A", {T1, T2, 5});
      auto K = f32("K", {2, 3, 5});
      auto s =
          make_scope({{"t1", 0, T1}, {"t2", 1, T2 + 1}, {"r", 0, 2}, {"f", 0, 3}}, {{"c", 0, 5}},
                     make_constant(0.5) * make_access(A, {idx("t1"), idx("t2") - 1, idx("c")}) *
                         make_access(K, {idx("r"), idx("f"), idx("c")}));
      auto i = expect_match(*s, op_kind::matmul);
      CHECK(i.gemm().m == T1 * T2);
      CHECK(i.gemm().n == 6);
      CHECK(i.gemm().k == 5);
      CHECK(i.gemm().trans_b);
      CHECK(i.gemm().alpha == 0.5);
    }
}

TEST_CASE("matmul: a split reduction, nested scope operands, negation, division by a constant") {
  // k = (k1, k2) nested in both A[m, k1, k2] and B[k1, k2, n]
  auto A = f32("A", {3, 2, 4}), B = f32("B", {2, 4, 5});
  auto s =
      make_scope({{"m", 0, 3}, {"n", 0, 5}}, {{"k1", 0, 2}, {"k2", 0, 4}},
                 make_unary(unary_fn::neg, make_access(A, {idx("m"), idx("k1"), idx("k2")}) *
                                               make_access(B, {idx("k1"), idx("k2"), idx("n")})) /
                     make_constant(4.0));
  auto i = expect_match(*s, op_kind::matmul);
  CHECK(i.gemm().k == 8);
  CHECK(i.gemm().alpha == -0.25);
  // A nested scope with a negative lower bound is an operand like a tensor: P = L_{i in [-1, 2), k}
  // A[i + 1, k, 0]
  auto P = make_scope({{"i", -1, 2}, {"k", 0, 2}}, {}, make_access(A, {idx("i") + 1, idx("k"), 0}));
  auto t = make_scope(
      {{"m", 0, 3}, {"n", 0, 4}}, {{"k", 0, 2}},
      make_access(P, {idx("m") - 1, idx("k")}) * make_access(B, {idx("k"), 1, idx("n")}));
  auto j = expect_match(*t, op_kind::matmul);
  CHECK(j.inputs[0].source_name() == "<scope>");
  CHECK(j.gemm().ldb == 20);
  CHECK(j.inputs[1].offset == 5);
}

TEST_CASE("matmul: Figure 5's E6, Conv3x3 as a Matmul (t1, t2 → m; r, s, f → n; c → k)") {
  auto A = f32("A", {7, 7, 16}), K = f32("K", {3, 3, 8, 16});
  auto e6 = make_scope({{"t1", 0, 7}, {"t2", 0, 7}, {"r", 0, 3}, {"s", 0, 3}, {"f", 0, 8}},
                       {{"c", 0, 16}},
                       make_access(A, {idx("t1"), idx("t2"), idx("c")}) *
                           make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
  auto i = expect_match(*e6, op_kind::matmul);
  CHECK(i.gemm().m == 49);
  CHECK(i.gemm().n == 72);
  CHECK(i.gemm().k == 16);
  CHECK(!i.gemm().trans_a);
  CHECK(i.gemm().trans_b);
  CHECK(i.gemm().ldb == 16);
  CHECK(!memory_bound(i));
}

TEST_CASE(
    "batch_matmul: Longformer's per-head projection on a [sequence, heads, features] layout") {
  // O[h, t, e] = Σ_d X[t, h, d] · Wt[h, d, e]: the head is the batch, X is strided by heads
  auto X = f32("X", {10, 4, 6}), Wt = f32("Wt", {4, 6, 5});
  auto s = make_scope({{"h", 0, 4}, {"t", 0, 10}, {"e", 0, 5}}, {{"d", 0, 6}},
                      make_access(X, {idx("t"), idx("h"), idx("d")}) *
                          make_access(Wt, {idx("h"), idx("d"), idx("e")}));
  auto i = expect_match(*s, op_kind::batch_matmul);
  CHECK(i.gemm().batch == 4);
  CHECK(i.gemm().lda == 24);
  CHECK(i.gemm().stride_a == 6);
}

TEST_CASE("batch_matmul: every dimension order of A, B and O") {
  const std::int64_t Bt = 2, M = 3, N = 4, K = 5;
  std::map<std::string, std::int64_t> ext{{"b", Bt}, {"m", M}, {"n", N}, {"k", K}};
  auto dims = [&](const std::vector<std::string>& names) {
    std::vector<std::int64_t> shape;
    std::vector<affine> index;
    for (auto& n : names) shape.push_back(ext[n]), index.push_back(idx(n));
    return std::pair{shape, index};
  };
  int matched = 0, bridged = 0;
  for (auto& pa : permutations(3))
    for (auto& pb : permutations(3))
      for (auto& po : permutations(3)) {
        auto an = permute<std::string>({"b", "m", "k"}, pa),
             bn = permute<std::string>({"b", "k", "n"}, pb),
             on = permute<std::string>({"b", "m", "n"}, po);
        auto [ashape, aidx] = dims(an);
        auto [bshape, bidx] = dims(bn);
        std::vector<iterator> trav;
        for (auto& n : on) trav.push_back({n, 0, ext[n]});
        auto s =
            make_scope(trav, {{"k", 0, K}},
                       make_access(f32("A", ashape), aidx) * make_access(f32("B", bshape), bidx));
        // cuBLAS needs one of each operand's two matrix dimensions contiguous: b may not be last.
        bool expect = an.back() != "b" && bn.back() != "b" && on.back() != "b";
        if (expect) {
          auto i = expect_match(*s, op_kind::batch_matmul);
          CHECK(i.gemm().batch == Bt);
          ++matched;
        } else {
          expect_no_match(*s, op_kind::batch_matmul);
          auto br = bridges(*s);
          REQUIRE(!br.empty());
          auto env = random_bindings(*s, 3);
          CHECK(eval::max_rel_error(eval::evaluate(*br[0].result, env), eval::evaluate(*s, env)) <
                1e-12);
          CHECK(semantic_error(*br[0].core, br[0].op) < 1e-12);
          ++bridged;
        }
      }
  CHECK(matched == 64);
  CHECK(bridged == 216 - 64);
}

TEST_CASE("batch_matmul: Figure 8(b), Z[u,v,w] = Σ_x X[u,0,v,x+1] · Y[u-1,u,x,w]") {
  const std::int64_t U = 3, V = 4, X = 5, Wd = 6;
  auto Xt = f32("X", {U + 1, 2, V, X + 1});
  auto Yt = f32("Y", {U, U + 1, X, Wd});
  auto s = make_scope({{"u", 1, U + 1}, {"v", 0, V}, {"w", 0, Wd}}, {{"x", 0, X}},
                      make_access(Xt, {idx("u"), 0, idx("v"), idx("x") + 1}) *
                          make_access(Yt, {idx("u") - 1, idx("u"), idx("x"), idx("w")}));
  auto i = expect_match(*s, op_kind::batch_matmul);
  auto& g = i.gemm();
  CHECK(g.batch == U);
  CHECK(g.m == V);
  CHECK(g.n == Wd);
  CHECK(g.k == X);
  // l_B0 = l_Y0 + l_Y1 (Figure 8d): the batch stride of Y is the sum of its first two strides.
  CHECK(g.stride_b == (U + 1) * X * Wd + X * Wd);
  CHECK(g.ldb == Wd);
  CHECK(g.lda == X + 1);
  CHECK(i.inputs[0].source_name() == "X");
  CHECK(i.inputs[0].offset == 2 * V * (X + 1) + 1);  // u starts at 1, and x + 1
  CHECK(i.inputs[1].offset == X * Wd);               // (u − 1)·l_Y0 + u·l_Y1 at u = 1
}

TEST_CASE("matmul: a group that does not merge becomes a broadcast batch") {
  // m = (t1, t2) with A[t1, c, t2]: not flattenable, but t1 can be a batch that shares B
  auto A = f32("A", {2, 5, 3});
  auto B = f32("B", {5, 4});
  auto s = make_scope(
      {{"t1", 0, 2}, {"t2", 0, 3}, {"n", 0, 4}}, {{"c", 0, 5}},
      make_access(A, {idx("t1"), idx("c"), idx("t2")}) * make_access(B, {idx("c"), idx("n")}));
  auto i = expect_match(*s, op_kind::matmul);
  CHECK(i.gemm().batch == 2);
  CHECK(i.gemm().m == 3);
  CHECK(i.gemm().stride_b == 0);
  CHECK(i.gemm().trans_a);
  CHECK(i.bytes == 4.0 * (2 * 3 * 5 + 5 * 4 + 2 * 3 * 4));
  // O[m, b, n] = Σ_k A[b, m, k]·W[k, n]
  auto X = f32("X", {3, 4, 5}), Wt = f32("W", {5, 6});
  auto t = make_scope(
      {{"m", 0, 4}, {"b", 0, 3}, {"n", 0, 6}}, {{"k", 0, 5}},
      make_access(X, {idx("b"), idx("m"), idx("k")}) * make_access(Wt, {idx("k"), idx("n")}));
  auto j = expect_match(*t, op_kind::matmul);
  CHECK(j.gemm().batch * j.gemm().m == 12);
  CHECK(bridges(*t).empty());
}

TEST_CASE("matmul: groups whose strides are not nested are bridged by relayouts") {
  // k = (c1, c2) in A[m, c1, c2] but B[c2, c1, n]: no order is nested in both
  auto A = f32("A", {3, 2, 5});
  auto B = f32("B", {5, 2, 4});
  auto s = make_scope({{"m", 0, 3}, {"n", 0, 4}}, {{"c1", 0, 2}, {"c2", 0, 5}},
                      make_access(A, {idx("m"), idx("c1"), idx("c2")}) *
                          make_access(B, {idx("c2"), idx("c1"), idx("n")}));
  expect_no_match(*s, op_kind::matmul);
  auto br = bridges(*s);
  REQUIRE(br.size() == 1);
  CHECK(br[0].relayouts.size() == 1);
  CHECK(!br[0].output_relayout);
  CHECK(br[0].op.kind == op_kind::matmul);
  CHECK(br[0].op.gemm().k == 10);
  auto env = random_bindings(*s, 5);
  CHECK(eval::max_rel_error(eval::evaluate(*br[0].result, env), eval::evaluate(*s, env)) < 1e-12);
  CHECK(semantic_error(*br[0].core, br[0].op) < 1e-12);

  // the output interleaves both groups: O[t1, n1, t2, n2]; only an output relayout helps.
  auto A2 = f32("A", {2, 3, 5});
  auto B2 = f32("B", {5, 2, 2});
  auto s2 = make_scope({{"t1", 0, 2}, {"n1", 0, 2}, {"t2", 0, 3}, {"n2", 0, 2}}, {{"c", 0, 5}},
                       make_access(A2, {idx("t1"), idx("t2"), idx("c")}) *
                           make_access(B2, {idx("c"), idx("n1"), idx("n2")}));
  expect_no_match(*s2, op_kind::matmul);
  auto br2 = bridges(*s2);
  REQUIRE(!br2.empty());
  CHECK(br2[0].relayouts.empty());
  CHECK(br2[0].output_relayout);
  auto env2 = random_bindings(*s2, 6);
  CHECK(eval::max_rel_error(eval::evaluate(*br2[0].result, env2), eval::evaluate(*s2, env2)) <
        1e-12);
  CHECK(semantic_error(*br2[0].core, br2[0].op) < 1e-12);
}

TEST_CASE("matmul: near misses do not match") {
  auto A = f32("A", {3, 5}), B = f32("B", {5, 4}), V = f32("V", {8});
  auto a = make_access(A, {idx("m"), idx("k")}), b = make_access(B, {idx("k"), idx("n")});
  std::vector<iterator> mn{{"m", 0, 3}, {"n", 0, 4}};
  std::vector<iterator> k{{"k", 0, 5}};
  auto none = [](const scope_ptr& s) {
    expect_no_match(*s, op_kind::matmul);
    expect_no_match(*s, op_kind::batch_matmul);
  };
  // overlapping iterators: V[m + k] has lda = 1 < k
  none(make_scope(mn, k, make_access(V, {idx("m") + idx("k")}) * b));
  // wrong coefficient: A'[m, 2k] leaves neither dimension contiguous
  none(make_scope(mn, {{"k", 0, 2}},
                  make_access(f32("A", {3, 4}), {idx("m"), idx("k") * 2}) *
                      make_access(f32("B", {2, 4}), {idx("k"), idx("n")})));
  // a summed iterator in one tensor only
  none(make_scope(mn, k, a * make_access(f32("B", {4}), {idx("n")})));
  // an extra unary function, a sum instead of a product, three factors, a non-constant divisor
  none(make_scope(mn, k, make_unary(unary_fn::relu, a * b)));
  none(make_scope(mn, k, a + b));
  none(make_scope(mn, k, a * b * make_access(A, {idx("m"), idx("k")})));
  none(make_scope(mn, k, a / b));
  // a constant that reads padding: row m + 1 of A is row 3 (outside) for m = 2
  none(make_scope(mn, k, make_access(A, {idx("m") + 1, idx("k")}) * b));
  // floor division in an index
  none(make_scope({{"m", 0, 6}, {"n", 0, 4}}, k,
                  make_access(A, {idx("m").floordiv(2), idx("k")}) * b));
  // a traversal iterator that no input reads (a broadcast)
  none(make_scope({{"m", 0, 3}, {"n", 0, 4}, {"z", 0, 2}}, k, a * b));
}

TEST_CASE("matmul: cost facts, memory-bound threshold, distance") {
  auto s = operators::matmul_canonical({{"m", 64}, {"n", 64}, {"k", 64}});
  auto i = expect_match(*s, op_kind::matmul);
  CHECK(i.flops == 2.0 * 64 * 64 * 64);
  CHECK(i.bytes == 4.0 * 3 * 64 * 64);
  CHECK(!memory_bound(i));
  auto thin = operators::matmul_canonical({{"m", 64}, {"n", 1}, {"k", 64}});
  CHECK(memory_bound(expect_match(*thin, op_kind::matmul)));
  auto c = eoperator_cost(*s);
  CHECK(c.flops == 64.0 * 64 * 64 * 2);
  CHECK(c.bytes == 4.0 * 3 * 64 * 64);
  // E6 of Figure 5: t1, t2 → m; r, s, f → n; c → k: 1 + 2 = 3 mismatched iterators.
  auto A = f32("A", {2, 3, 5}), K = f32("K", {3, 3, 4, 5});
  auto e6 =
      make_scope({{"t1", 0, 2}, {"t2", 0, 3}, {"r", 0, 3}, {"s", 0, 3}, {"f", 0, 4}}, {{"c", 0, 5}},
                 make_access(A, {idx("t1"), idx("t2"), idx("c")}) *
                     make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
  CHECK(distance(*e6, operators::matmul()) == 3);
  CHECK(distance(*s, operators::matmul()) == 0);
  CHECK(!distance(*s, operators::batch_matmul()).has_value());
}

}  // namespace gemm_test
