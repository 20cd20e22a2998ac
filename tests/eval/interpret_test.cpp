// The interpreter against hand-written loops.
#include <doctest/doctest.h>

#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"

using namespace ein;
using namespace ein::ir;

TEST_CASE("interpreter: matmul equals the triple loop") {
  eval::random_stream rng(1);
  for (auto [m, n, k] : {std::tuple{3, 4, 5}, {1, 7, 2}, {6, 1, 9}}) {
    tensor A{"A", dtype::f32, {m, k}}, B{"B", dtype::f32, {k, n}};
    auto s = make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                        make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k"), idx("j")}));
    eval::bindings env{{"A", eval::random_dense(A.shape, rng)}, {"B", eval::random_dense(B.shape, rng)}};
    auto out = eval::evaluate(*s, env);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double ref = 0;
        for (int q = 0; q < k; ++q) ref += env["A"].data[i * k + q] * env["B"].data[q * n + j];
        CHECK(out.data[i * n + j] == doctest::Approx(ref));
      }
  }
}

TEST_CASE("interpreter: reads outside a box are zero, negative lower bounds work") {
  eval::random_stream rng(2);
  tensor A{"A", dtype::f32, {5}};
  // L_{t in [-2, 7)} A[t]: the padded copy of A.
  auto s = make_scope({{"t", -2, 7}}, {}, make_access(A, {idx("t")}));
  eval::bindings env{{"A", eval::random_dense(A.shape, rng)}};
  auto out = eval::evaluate(*s, env);
  REQUIRE(out.shape == std::vector<std::int64_t>{9});
  CHECK(out.data[0] == 0.0);
  CHECK(out.data[1] == 0.0);
  CHECK(out.data[2] == env["A"].data[0]);
  CHECK(out.data[8] == 0.0);
  // a nested scope is read through its own box
  auto outer = make_scope({{"i", 0, 5}}, {}, make_access(s, {idx("i") - 2}));
  auto o = eval::evaluate(*outer, env);
  CHECK(o.data[0] == 0.0);
  CHECK(o.data[2] == env["A"].data[0]);
}

TEST_CASE("interpreter: floor division and modulo index") {
  eval::random_stream rng(3);
  tensor A{"A", dtype::f32, {3, 7}};
  auto s = make_scope({{"m", 0, 21}}, {}, make_access(A, {idx("m").floordiv(7), idx("m").mod(7)}));
  eval::bindings env{{"A", eval::random_dense(A.shape, rng)}};
  auto out = eval::evaluate(*s, env);
  CHECK(out.data == env["A"].data);
}

TEST_CASE("interpreter: unknown iterators are user errors") {
  tensor A{"A", dtype::f32, {3}};
  auto s = make_scope({{"i", 0, 3}}, {}, make_access(A, {idx("j")}));
  eval::bindings env{{"A", eval::dense({3})}};
  CHECK_THROWS_AS(eval::evaluate(*s, env), user_error);
}
