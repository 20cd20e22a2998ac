// Layout bridges beyond GEMMs: split (dilated) bands and convolutions become library operators
// between relayout eOperators, each checked against the interpreter on random inputs.
#include "check.hpp"

namespace bridge_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

namespace {

const operator_def& op_of(op_kind k) {
  for (auto& op : operator_table())
    if (op.kind == k) return op;
  throw internal_error("no operator");
}

// The bridge result equals the scope, and its core equals what the library computes.
void check_bridge(const scope& s, const bridge& b, std::uint64_t seed) {
  auto env = random_bindings(s, seed);
  CHECK(eval::max_rel_error(eval::evaluate(*b.result, env), eval::evaluate(s, env)) < 1e-12);
  CHECK(semantic_error(*b.core, b.op, seed) < 1e-12);
}

}  // namespace

TEST_CASE("bridge: dilated G2BMM split as i = D·q + p becomes a non-dilated G2BMM (Figure 14)") {
  int n = 0;
  for (std::int64_t D : {2, 3, 4})
    for (std::int64_t Q : {3, 5})
      for (std::int64_t W : {1, 2})
        for (std::int64_t K : {2, 3}) {
          std::int64_t M = D * Q, B = 2;
          // L_{b,p,q,w} Σ_k A[b, p + D·q, k] · B[b, p + D·q + D·w − D·W, k]
          auto s = make_scope({{"b", 0, B}, {"p", 0, D}, {"q", 0, Q}, {"w", 0, 2 * W + 1}}, {{"k", 0, K}},
                              make_access(f32("A", {B, M, K}), {idx("b"), idx("p") + idx("q") * D, idx("k")}) *
                                  make_access(f32("B", {B, M, K}),
                                              {idx("b"), idx("p") + idx("q") * D + idx("w") * D - D * W, idx("k")}));
          INFO(to_string(*s));
          CHECK(match::match(*s, op_of(op_kind::g2bmm)).empty());
          auto br = bridges(*s, op_of(op_kind::g2bmm));
          REQUIRE(br.size() == 1);
          CHECK(br[0].op.kind == op_kind::g2bmm);
          CHECK(br[0].op.band().dilation == 1);
          CHECK(br[0].op.band().batch == B * D);
          CHECK(br[0].op.band().m == Q);
          CHECK(br[0].relayouts.size() == 2);
          check_bridge(*s, br[0], static_cast<std::uint64_t>(D * 100 + Q * 10 + W));
          ++n;
        }
  CHECK(n == 24);
}

TEST_CASE("bridge: a convolution reading a split row index becomes a Conv2d after relayout") {
  // L_{n,p,q,w,f} Σ_{r,s,c} X[n, p + 2·q + 2·r − 2, w + s − 1, c] · K[r, s, f, c]: a dilated
  // convolution over rows split by parity; the relayout X'[n, p, y, w', c] = X[n, p + 2·y, w', c]
  // undilates it
  int n = 0;
  for (std::int64_t Q : {3, 4})
    for (std::int64_t C : {1, 2})
      for (std::int64_t F : {1, 3}) {
        std::int64_t H = 2 * Q, Wd = 4;
        auto s = make_scope(
            {{"n", 0, 1}, {"p", 0, 2}, {"q", 0, Q}, {"w", 0, Wd}, {"f", 0, F}},
            {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, C}},
            make_access(f32("X", {1, H, Wd, C}),
                        {idx("n"), idx("p") + idx("q") * 2 + idx("r") * 2 - 2, idx("w") + idx("s") - 1, idx("c")}) *
                make_access(f32("K", {3, 3, F, C}), {idx("r"), idx("s"), idx("f"), idx("c")}));
        INFO(to_string(*s));
        auto br = bridges(*s, op_of(op_kind::conv2d));
        REQUIRE(br.size() == 1);
        CHECK(br[0].op.kind == op_kind::conv2d);
        check_bridge(*s, br[0], static_cast<std::uint64_t>(Q * 10 + C + F));
        ++n;
      }
  CHECK(n == 8);
}

TEST_CASE("bridge: GEMMs whose K groups do not nest, over a family of sizes") {
  for (std::int64_t M : {1, 3})
    for (std::int64_t C1 : {2, 3})
      for (std::int64_t C2 : {2, 5}) {
        auto s = make_scope({{"m", 0, M}, {"n", 0, 4}}, {{"c1", 0, C1}, {"c2", 0, C2}},
                            make_access(f32("A", {M, C1, C2}), {idx("m"), idx("c1"), idx("c2")}) *
                                make_access(f32("B", {C2, C1, 4}), {idx("c2"), idx("c1"), idx("n")}));
        auto br = bridges(*s, op_of(op_kind::matmul));
        REQUIRE(br.size() == 1);
        CHECK(br[0].op.gemm().k == C1 * C2);
        CHECK(br[0].relayouts.size() == 1);
        check_bridge(*s, br[0], static_cast<std::uint64_t>(M + C1 + C2));
      }
}

}  // namespace bridge_test
