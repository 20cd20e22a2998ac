// The interpreter against hand-written loops.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "codegen/e2e/programs.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "eval/hand_loops.hpp"

using namespace ein;
using namespace ein::ir;

namespace {

template <int... Id>
void check_hand_loops(std::integer_sequence<int, Id...>) {
  auto one = [](const ir::program& p, int id) {
    CAPTURE(p.name);
    for (std::uint64_t seed : {1, 2, 3}) {
      auto env = eval::random_inputs(p, seed);
      auto got = eval::evaluate(p, env);
      auto want = ein_test::hand_loops(id, env);
      REQUIRE(want.size() == p.outputs.size());
      for (auto& [name, value] : want) {
        CAPTURE(name);
        CHECK(eval::max_rel_error(got.at(name), value) <= 1e-14);
      }
    }
  };
  (one(ein_test::build<Id>(), Id), ...);
}

}  // namespace

TEST_CASE("interpreter: every hand-built program equals its loops written without the IR") {
  check_hand_loops(ein_test::hand_loop_programs{});
}

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

TEST_CASE("interpreter: max pooling leaves padded points out, as PyTorch's MaxPool2d") {
  eval::random_stream rng(4);
  for (auto [hw, k, stride, pad] : {std::tuple{5, 3, 2, 1}, {6, 2, 2, 0}, {4, 3, 1, 1}, {7, 3, 3, 1}}) {
    tensor A{"A", dtype::f32, {hw, hw}};
    std::int64_t out = (hw + 2 * pad - k) / stride + 1;
    auto s = make_scope({{"h", 0, out}, {"w", 0, out}}, {{"r", 0, k}, {"s", 0, k}},
                        make_access(A, {stride * idx("h") + idx("r") - pad,
                                        stride * idx("w") + idx("s") - pad}),
                        reduction::max);
    eval::bindings env{{"A", eval::random_dense(A.shape, rng)}};
    auto got = eval::evaluate(*s, env);
    for (std::int64_t h = 0; h < out; ++h)
      for (std::int64_t w = 0; w < out; ++w) {
        double ref = -std::numeric_limits<double>::infinity();
        for (std::int64_t r = 0; r < k; ++r)
          for (std::int64_t q = 0; q < k; ++q) {
            std::int64_t y = stride * h + r - pad, x = stride * w + q - pad;
            if (y >= 0 && y < hw && x >= 0 && x < hw) ref = std::max(ref, env["A"].data[y * hw + x]);
          }
        CHECK(got.data[h * out + w] == ref);
      }
  }
}

TEST_CASE("interpreter: a max or min point is left out when any access of its body is outside") {
  eval::random_stream rng(5);
  tensor A{"A", dtype::f32, {4}}, B{"B", dtype::f32, {6}};
  // max_k A[k - 1] + B[k]: k = 0 and k = 5 read A outside its box, whatever B holds there
  auto body = make_access(A, {idx("k") - 1}) + make_access(B, {idx("k")});
  eval::bindings env{{"A", eval::random_dense(A.shape, rng)}, {"B", eval::random_dense(B.shape, rng)}};
  for (auto r : {reduction::max, reduction::min}) {
    auto got = eval::evaluate(*make_scope({}, {{"k", 0, 6}}, body, r), env);
    double ref = env["A"].data[0] + env["B"].data[1];
    for (int k = 2; k <= 4; ++k) {
      double v = env["A"].data[k - 1] + env["B"].data[k];
      ref = r == reduction::max ? std::max(ref, v) : std::min(ref, v);
    }
    CHECK(got.data[0] == ref);
  }
  // the sum over the same body reads the outside as 0
  auto sum = eval::evaluate(*make_scope({}, {{"k", 0, 6}}, body), env);
  double ref = 0;
  for (int k = 0; k < 6; ++k) ref += (k >= 1 && k <= 4 ? env["A"].data[k - 1] : 0.0) + env["B"].data[k];
  CHECK(sum.data[0] == doctest::Approx(ref));
}

TEST_CASE("interpreter: an element with no point left is -inf for max, +inf for min") {
  eval::random_stream rng(6);
  tensor A{"A", dtype::f32, {3}};
  eval::bindings env{{"A", eval::random_dense(A.shape, rng)}};
  // L_{i in [-3, 5)} max_{} A[i]: the -inf-padded copy of A
  auto copy = make_scope({{"i", -3, 5}}, {}, make_access(A, {idx("i")}), reduction::max);
  auto got = eval::evaluate(*copy, env);
  constexpr double inf = std::numeric_limits<double>::infinity();
  CHECK(got.data == std::vector<double>{-inf, -inf, -inf, env["A"].data[0], env["A"].data[1],
                                        env["A"].data[2], -inf, -inf});
  auto window = make_scope({{"i", 0, 6}}, {{"k", 0, 2}}, make_access(A, {idx("i") + idx("k")}),
                           reduction::min);
  auto m = eval::evaluate(*window, env);
  CHECK(m.data[2] == env["A"].data[2]);
  CHECK(m.data[3] == inf);
  CHECK(m.data[5] == inf);
  // compare: equal infinities match, an infinity against a number does not
  CHECK(eval::max_rel_error(got, got) == 0.0);
  auto other = got;
  other.data[0] = 1;
  CHECK(eval::max_rel_error(other, got) == inf);
}

TEST_CASE("interpreter: binary max and min") {
  eval::random_stream rng(7);
  tensor A{"A", dtype::f32, {9}}, B{"B", dtype::f32, {9}};
  eval::bindings env{{"A", eval::random_dense(A.shape, rng)}, {"B", eval::random_dense(B.shape, rng)}};
  auto a = make_access(A, {idx("i")}), b = make_access(B, {idx("i")});
  auto got = eval::evaluate(*make_scope({{"i", 0, 9}}, {}, max(a, b) - min(a, b)), env);
  for (int i = 0; i < 9; ++i)
    CHECK(got.data[i] == std::abs(env["A"].data[i] - env["B"].data[i]));
}

TEST_CASE("interpreter: step is 1 for a positive argument, 0 for zero and below (relu's derivative)") {
  tensor A{"A", dtype::f32, {4}};
  eval::bindings env{{"A", eval::dense({4})}};
  env["A"].data = {-2, 0, 1e-30, 3};
  auto got = eval::evaluate(*make_scope({{"i", 0, 4}}, {}, make_unary(unary_fn::step, make_access(A, {idx("i")}))), env);
  CHECK(got.data == std::vector<double>{0, 0, 1, 1});
}

TEST_CASE("interpreter: a 16-bit definition stores its value rounded once to its type") {
  // y[i] = Σ_k A[i, k] · B[k] over half inputs into half, z[i] = y[i] · 3 into bfloat16: the sum is
  // exact in double, rounded once where y stores it; z reads y's rounded values.
  constexpr int m = 5, n = 40;
  tensor A{"A", dtype::f16, {m, n}}, B{"B", dtype::f16, {n}};
  tensor y{"y", dtype::f16, {m}, tensor_role::definition};
  program p;
  p.name = "rounding";
  p.tensors = {A, B};
  p.definitions.push_back(
      {"y", make_scope({{"i", 0, m}}, {{"k", 0, n}}, make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k")})),
       dtype::f16});
  p.definitions.push_back({"z", make_scope({{"i", 0, m}}, {}, make_access(y, {idx("i")}) * make_constant(3.0)),
                           dtype::bf16});
  p.outputs = {"z"};
  auto env = eval::random_inputs(p, 5);
  for (auto* t : {&A, &B})
    for (double x : env.at(t->name).data) {
      CHECK(x != 0.0);
      CHECK(static_cast<double>(static_cast<float>(ein::half(static_cast<float>(x)))) == x);  // a half value
    }
  auto got = eval::evaluate(p, env);
  for (int i = 0; i < m; ++i) {
    double exact = 0;
    for (int k = 0; k < n; ++k) exact += env["A"].data[i * n + k] * env["B"].data[k];
    const double stored = static_cast<float>(ein::half(static_cast<float>(exact)));
    CHECK(got["y"].data[i] == stored);
    CHECK(std::abs(stored - exact) <= std::abs(exact) * 0x1p-11);  // within half a unit in the last place
    CHECK(got["z"].data[i] == static_cast<float>(ein::bfloat16(static_cast<float>(stored * 3))));
  }
  // An input value no half holds is read as the half nearest to it, as its buffer would hold it.
  env["A"].data[0] = 1.0 + 0x1p-12;
  CHECK(eval::evaluate(p, env)["y"].data[0] == eval::evaluate(p, [&] {
          auto e = env;
          e["A"].data[0] = 1.0;
          return e;
        }())["y"].data[0]);
  // Float and double definitions are left as computed.
  CHECK(eval::stored_value(1.0 + 0x1p-40, dtype::f32) == 1.0 + 0x1p-40);
  CHECK(eval::stored_value(1.0 + 0x1p-40, dtype::f64) == 1.0 + 0x1p-40);
  CHECK(eval::stored_value(1.0 + 0x1p-9, dtype::bf16) == 1.0);
}
