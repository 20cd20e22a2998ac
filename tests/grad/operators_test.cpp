// Single operators differentiated: each gradient agrees with finite differences, and the
// gathers are the exact inversions (no indicator, the sums a library operator would make).
#include "grad/grad_support.hpp"

namespace operators_test {

using namespace grad_support;

TEST_CASE("matmul: both gradients are matrix products over the other operand") {
  auto A = input("A", {4, 3}), W = weight("W", {3, 5});
  auto y = make_scope({{"i", 0, 4}, {"j", 0, 5}}, {{"k", 0, 3}},
                      make_access(A, {idx("i"), idx("k")}) * make_access(W, {idx("k"), idx("j")}));
  auto g = checked(make_program({A, W}, {{"y", y}}));
  auto& ga = *definition_of(g.program, "A_grad").value;
  auto& gw = *definition_of(g.program, "W_grad").value;
  CHECK(summation_points(ga) == 5);
  CHECK(summation_points(gw) == 4);
  CHECK(constant_scopes(ga) + constant_scopes(gw) == 0);
  CHECK(g.accumulating_forms.empty());
}

// L_{n,h,w,f} Σ_{r,s,c} X[n, st·h + d·r − pad, st·w + d·s − pad, c] · K[r, s, f, c]
scope_ptr conv(const tensor& X, const tensor& K, std::int64_t st, std::int64_t dil, std::int64_t pad) {
  auto out = [&](std::int64_t in, std::int64_t k) { return (in + 2 * pad - dil * (k - 1) - 1) / st + 1; };
  std::int64_t oh = out(X.shape[1], K.shape[0]), ow = out(X.shape[2], K.shape[1]);
  return make_scope({{"n", 0, X.shape[0]}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, K.shape[2]}},
                    {{"r", 0, K.shape[0]}, {"s", 0, K.shape[1]}, {"c", 0, X.shape[3]}},
                    make_access(X, {idx("n"), idx("h") * st + idx("r") * dil - pad, idx("w") * st + idx("s") * dil - pad,
                                    idx("c")}) *
                        make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

TEST_CASE("convolution: ∂X sums over the filter only, at every stride, dilation and padding") {
  struct shape {
    std::int64_t side, k, st, dil, pad;
  };
  for (auto [side, k, st, dil, pad] : {shape{5, 3, 1, 1, 1}, shape{7, 3, 2, 1, 1}, shape{6, 3, 1, 2, 2},
                                       shape{8, 3, 2, 1, 0}, shape{7, 1, 2, 1, 0}, shape{9, 4, 3, 1, 1}}) {
    INFO("side ", side, ", kernel ", k, ", stride ", st, ", dilation ", dil, ", padding ", pad);
    auto X = input("X", {2, side, side, 3}), K = weight("K", {k, k, 4, 3});
    auto g = checked(make_program({X, K}, {{"y", conv(X, K, st, dil, pad)}}));
    auto& gx = *definition_of(g.program, "X_grad").value;
    // a filter tap per stride step: ⌈k / st⌉² taps of the 4 filters
    std::int64_t taps = (k + st - 1) / st;
    CHECK(summation_points(gx) == taps * taps * 4);
    CHECK(constant_scopes(gx) == 0);
    auto& gk = *definition_of(g.program, "K_grad").value;
    CHECK(summation_points(gk) == 2 * definition_of(g.program, "y").value->shape()[1] *
                                      definition_of(g.program, "y").value->shape()[2]);
  }
}

TEST_CASE("transposed convolution (the scatter ops::conv_transpose2d writes): ∂X is a strided convolution") {
  for (std::int64_t st : {1, 2, 3}) {
    CAPTURE(st);
    const std::int64_t side = 3, R = 4, pad = 1, C = 2, F = 3;
    auto X = input("X", {1, side, side, C}), K = weight("K", {R, R, F, C});
    const std::int64_t oh = (side - 1) * st - 2 * pad + R;
    auto hh = idx("h") + pad, ww = idx("w") + pad;
    auto y = make_scope({{"n", 0, 1}, {"h", 0, oh}, {"w", 0, oh}, {"f", 0, F}},
                        {{"u", 0, (R + st - 1) / st}, {"v", 0, (R + st - 1) / st}, {"c", 0, C}},
                        make_access(X, {idx("n"), hh.floordiv(st) - idx("u"), ww.floordiv(st) - idx("v"), idx("c")}) *
                            make_access(K, {idx("u") * st + hh.mod(st), idx("v") * st + ww.mod(st), idx("f"), idx("c")}));
    auto g = checked(make_program({X, K}, {{"y", y}}));
    auto& gx = *definition_of(g.program, "X_grad").value;
    CHECK(summation_points(gx) == R * R * F);
    CHECK(constant_scopes(gx) == 0);
    INFO(to_string(gx));
    for (auto& i : gx.summation) CHECK(i.extent() <= std::max(R, F));
  }
}

TEST_CASE("every body function, division, max and min: elementwise chain rule") {
  auto X = input("X", {6}), W = weight("W", {6});
  auto x = make_access(X, {idx("i")}), w = make_access(W, {idx("i")});
  std::vector<std::pair<std::string, expr>> bodies = {
      {"neg", make_unary(unary_fn::neg, x * w)},
      {"relu", make_unary(unary_fn::relu, x + w)},
      {"sigmoid", make_unary(unary_fn::sigmoid, x * w)},
      {"tanh", make_unary(unary_fn::tanh, x - w)},
      {"exp", make_unary(unary_fn::exp, x * w)},
      {"sqrt", make_unary(unary_fn::sqrt, x * x + w * w + make_constant(0.5))},
      {"div", x / (w * w + make_constant(1))},
      {"max", ir::max(x, w) * x},
      {"min", ir::min(x * w, w)},
      {"prelu", ir::max(x, make_constant(0)) + w * ir::min(x, make_constant(0))},
  };
  for (auto& [name, body] : bodies) {
    CAPTURE(name);
    checked(make_program({X, W}, {{"y", make_scope({{"i", 0, 6}}, {}, body)}}));
  }
}

TEST_CASE("max pooling with padding: the gradient reaches the window's largest readable element") {
  auto X = input("X", {1, 7, 7, 2});
  auto pool = make_scope({{"n", 0, 1}, {"h", 0, 4}, {"w", 0, 4}, {"c", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}},
                         make_access(X, {idx("n"), idx("h") * 2 + idx("r") - 1, idx("w") * 2 + idx("s") - 1, idx("c")}),
                         reduction::max);
  auto g = checked(make_program({X}, {{"pool", pool}}));
  CHECK(g.program.find_definition("pool_first"));
  auto minimum = make_scope(pool->traversal, pool->summation, pool->body, reduction::min);
  checked(make_program({X}, {{"low", minimum}}));
}

TEST_CASE("a max reduction's ties go to the first maximal point in window order, as PyTorch's max pooling") {
  // y[i] = max_{r:[0,3)} X[i + r]: windows (1, 3, 3), (3, 3, 2), (3, 2, 3), (2, 3, 3)
  auto X = input("X", {6});
  auto y = make_scope({{"i", 0, 4}}, {{"r", 0, 3}}, make_access(X, {idx("i") + idx("r")}), reduction::max);
  auto p = make_program({X}, {{"y", y}});
  auto g = grad::gradient(p, {"X"});
  eval::bindings b;
  b["X"] = eval::dense({6});
  b["X"].data = {1, 3, 3, 2, 3, 3};
  b["y_grad"] = eval::dense({4});
  b["y_grad"].data = {1, 10, 100, 1000};
  auto out = eval::evaluate(g.program, b);
  // first maxima: X[1] (windows 0, 1), X[2] (window 2: X[2] before X[4]), X[4] (window 3)
  CHECK(out.at("X_grad").data == std::vector<double>{0, 11, 100, 0, 1000, 0});
}

TEST_CASE("softmax as ops::softmax writes it (max, exp, sum, quotient)") {
  auto X = input("X", {3, 5});
  auto x = [&](affine j) { return make_access(X, {idx("i"), j}); };
  auto top = make_scope({{"i", 0, 3}}, {{"j", 0, 5}}, x(idx("j")), reduction::max);
  auto e = make_scope({{"i", 0, 3}, {"j", 0, 5}}, {},
                      make_unary(unary_fn::exp, x(idx("j")) - make_access(defined("p_max", top), {idx("i")})));
  auto total = make_scope({{"i", 0, 3}}, {{"j", 0, 5}}, make_access(defined("p_exp", e), {idx("i"), idx("j")}));
  auto q = make_scope({{"i", 0, 3}, {"j", 0, 5}}, {},
                      make_access(defined("p_exp", e), {idx("i"), idx("j")}) /
                          make_access(defined("p_sum", total), {idx("i")}));
  checked(make_program({X}, {{"p_max", top}, {"p_exp", e}, {"p_sum", total}, {"p", q}}));
}

TEST_CASE("G2BMM's band and average pooling's constant divisor") {
  auto A = input("A", {1, 6, 3}), B = weight("B", {1, 6, 3});
  auto band = make_scope({{"b", 0, 1}, {"i", 0, 6}, {"w", 0, 5}}, {{"k", 0, 3}},
                         make_access(A, {idx("b"), idx("i"), idx("k")}) *
                             make_access(B, {idx("b"), idx("i") + idx("w") * 2 - 4, idx("k")}));
  checked(make_program({A, B}, {{"band", band}}));
  auto X = input("X", {1, 5, 5, 2});
  auto avg = make_scope({{"n", 0, 1}, {"h", 0, 5}, {"w", 0, 5}, {"c", 0, 2}}, {{"r", 0, 3}, {"s", 0, 3}},
                        make_access(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) /
                            make_constant(9));
  checked(make_program({X}, {{"avg", avg}}));
}

TEST_CASE("indices the inversion cannot solve: constants, repeated iterators, quotients of sums") {
  auto X = input("X", {4, 4}), W = weight("W", {6});
  auto w = make_access(W, {idx("i")});
  std::vector<std::pair<std::string, expr>> reads = {
      {"constant", make_access(X, {affine(1), idx("i").mod(4)}) * w},
      {"diagonal", make_access(X, {idx("i").mod(4), idx("i").mod(4)}) * w},
      {"quotient of a sum", make_access(X, {(idx("i") + idx("k")).floordiv(3), idx("k")}) * w},
      {"even rows", make_access(X, {idx("k") * 2, idx("i") - 1}) * w},
  };
  for (auto& [name, body] : reads) {
    CAPTURE(name);
    auto g = checked(make_program({X, W}, {{"y", make_scope({{"i", 0, 6}}, {{"k", 0, 2}}, body)}}));
    CHECK(constant_scopes(*definition_of(g.program, "X_grad").value) > 0);
  }
}

}  // namespace operators_test
