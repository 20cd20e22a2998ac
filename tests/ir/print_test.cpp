// The printer: paper notation, minimal parentheses, nested scopes and programs.
#include "ein/ir/print.hpp"

#include <doctest/doctest.h>

#include "ir/operators.hpp"

namespace print_test {

using namespace ein::ir;

namespace {
tensor vec(const char* n) { return tensor{n, dtype::f32, {4}}; }
expr at(const char* n) { return make_access(vec(n), {idx("i")}); }
}  // namespace

TEST_CASE("print: typical operators in the paper's notation") {
  CHECK(to_string(*ein::test::matmul(4, 5, 3)) ==
        "L_{i:[0,4), j:[0,5)} Σ_{k:[0,3)} A[i, k] * B[k, j]");
  // index terms print in the affine's canonical order, so `w + s - 1` reads `s + w - 1`
  CHECK(to_string(*ein::test::conv3x3(1, 7, 512, 512)) ==
        "L_{n:[0,1), h:[0,7), w:[0,7), f:[0,512)} Σ_{r:[0,3), s:[0,3), c:[0,512)} "
        "A[n, h + r - 1, s + w - 1, c] * K[r, s, f, c]");
  CHECK(to_string(*ein::test::g2bmm(2, 16, 8, 3, 2)) ==
        "L_{b:[0,2), i:[0,16), w:[0,7)} Σ_{k:[0,8)} Q[b, i, k] * K[b, i + 2*w - 6, k]");
  CHECK(to_string(*ein::test::nested_stencil()) ==
        "L_{i:[0,5)} Σ_{t:[-1,2)} {L_{a:[-1,6)} A[a] * 2}[i + t] * W[t + 1]");
}

TEST_CASE("print: no summation, floor division and modulo") {
  tensor A{"A", dtype::f32, {3, 7}};
  auto s = make_scope({{"m", 0, 21}}, {}, make_access(A, {idx("m").floordiv(7), idx("m").mod(7)}));
  CHECK(to_string(*s) == "L_{m:[0,21)} A[m / 7, m % 7]");
  auto scalar = make_scope({}, {{"k", 0, 3}}, make_access(A, {idx("k"), idx("k") * 2 + 1}));
  CHECK(to_string(*scalar) == "L_{} Σ_{k:[0,3)} A[k, 2*k + 1]");
}

TEST_CASE("print: max and min reductions and nodes") {
  CHECK(to_string(*ein::test::max_pool3x3(1, 5, 2)) ==
        "L_{n:[0,1), h:[0,3), w:[0,3), c:[0,2)} max_{r:[0,3), s:[0,3)} "
        "A[n, 2*h + r - 1, s + 2*w - 1, c]");
  auto a = at("a"), b = at("b"), c = at("c");
  CHECK(to_string(*make_scope({{"i", 0, 4}}, {}, a, reduction::min)) == "L_{i:[0,4)} min_{} a[i]");
  CHECK(to_string(max(a, b) * c) == "max(a[i], b[i]) * c[i]");
  CHECK(to_string(min(a + b, max(b, c * a))) == "min(a[i] + b[i], max(b[i], c[i] * a[i]))");
  CHECK(to_string(make_unary(unary_fn::neg, max(a, b))) == "-max(a[i], b[i])");
}

TEST_CASE("print: minimal parentheses keep the tree") {
  auto a = at("a"), b = at("b"), c = at("c");
  CHECK(to_string(a + b * c) == "a[i] + b[i] * c[i]");
  CHECK(to_string((a + b) * c) == "(a[i] + b[i]) * c[i]");
  CHECK(to_string(a - b - c) == "a[i] - b[i] - c[i]");
  CHECK(to_string(a - (b - c)) == "a[i] - (b[i] - c[i])");
  CHECK(to_string(a + (b + c)) == "a[i] + (b[i] + c[i])");
  CHECK(to_string(a / (b * c)) == "a[i] / (b[i] * c[i])");
  CHECK(to_string(a * b / c) == "a[i] * b[i] / c[i]");
  CHECK(to_string(make_unary(unary_fn::relu, a * make_constant(2))) == "relu(a[i] * 2)");
  CHECK(to_string(make_unary(unary_fn::neg, a + b)) == "-(a[i] + b[i])");
  CHECK(to_string(make_unary(unary_fn::neg, make_unary(unary_fn::neg, a))) == "-(-a[i])");
  CHECK(to_string(a * make_unary(unary_fn::neg, b)) == "a[i] * -b[i]");
  CHECK(to_string(make_constant(-1.5) * a + make_constant(0.1)) == "-1.5 * a[i] + 0.1");
  CHECK(to_string(make_unary(unary_fn::sigmoid, make_unary(unary_fn::exp, a))) ==
        "sigmoid(exp(a[i]))");
}

TEST_CASE("print: programs list tensors, definitions and outputs") {
  program p;
  p.name = "net";
  auto conv = ein::test::conv3x3(1, 7, 4, 2);
  p.tensors = {tensor{"A", dtype::f32, {1, 7, 7, 2}},
               tensor{"K", dtype::f32, {3, 3, 4, 2}, tensor_role::weight}};
  p.definitions.push_back({"conv", conv, dtype::f32});
  tensor conv_t{"conv", dtype::f32, {1, 7, 7, 4}, tensor_role::definition};
  auto all = [](const char* n) { return idx(n); };
  auto act = make_scope(
      {{"n", 0, 1}, {"h", 0, 7}, {"w", 0, 7}, {"f", 0, 4}}, {},
      make_unary(unary_fn::relu, make_access(conv_t, {all("n"), all("h"), all("w"), all("f")})));
  p.definitions.push_back({"out", act, dtype::f32});
  p.outputs = {"out"};
  CHECK(to_string(p) ==
        "program net\n"
        "input A: float[1, 7, 7, 2]\n"
        "weight K: float[3, 3, 4, 2]\n"
        "conv = L_{n:[0,1), h:[0,7), w:[0,7), f:[0,4)} Σ_{r:[0,3), s:[0,3), c:[0,2)} "
        "A[n, h + r - 1, s + w - 1, c] * K[r, s, f, c]\n"
        "out = L_{n:[0,1), h:[0,7), w:[0,7), f:[0,4)} relu(conv[n, h, w, f])\n"
        "output out\n");
}

}  // namespace print_test
