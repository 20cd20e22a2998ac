// Hand-built programs with weight transforms, for the prepared-plan tests (ein::prepare): each
// plan has steps that read weights only, whatever the cost model chooses elsewhere.
#pragma once

#include "codegen/e2e/programs.hpp"

namespace ein_test {

/// Programs prepared_base + k, k < prepared_count, are the programs below.
inline constexpr int prepared_base = 300;
inline constexpr int prepared_count = 3;

/// Figure 3(a)'s filter relayout as a definition of its own, then a convolution reading it:
/// Kt[f, c, r, s] = K[r, s, f, c] (a weight transform: KRSC → KCRS),
/// y[n, h, w, f] = Σ_{r,s,c} A[n, h+r-1, w+s-1, c] · Kt[f, c, r, s] (padding 1),
/// out[n, h, w, f] = y[n, h, w, f] + bias[f] (bias: a weight read as bound).
template <>
inline ir::program build<prepared_base>() {
  auto A = f32("A", {2, 6, 6, 4}), K = f32("K", {3, 3, 5, 4}, ir::tensor_role::weight),
       bias = f32("bias", {5}, ir::tensor_role::weight);
  auto kt = ir::make_scope({{"f", 0, 5}, {"c", 0, 4}, {"r", 0, 3}, {"s", 0, 3}}, {},
                           read(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
  ir::tensor Kt{"Kt", ir::dtype::f32, {5, 4, 3, 3}, ir::tensor_role::definition};
  auto y = ir::make_scope({{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 5}},
                          {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 4}},
                          read(A, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                              read(Kt, {idx("f"), idx("c"), idx("r"), idx("s")}));
  ir::tensor Y{"y", ir::dtype::f32, {2, 6, 6, 5}, ir::tensor_role::definition};
  auto at = std::vector<ir::affine>{idx("n"), idx("h"), idx("w"), idx("f")};
  auto out = ir::make_scope({{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 5}}, {},
                            read(Y, at) + read(bias, {idx("f")}));
  return {"prepared_relayout",
          {A, K, bias},
          {{"Kt", kt, ir::dtype::f32}, {"y", y, ir::dtype::f32}, {"out", out, ir::dtype::f32}},
          {"out"}};
}

/// Double precision; a chain of transforms, one over two weights, a nested weight-only scope in
/// a step that reads the input, and an output that reads weights only:
/// t1[k, j] = 0.5 · W[k, j] + V[j], t2[j, k] = tanh(t1[k, j]),
/// out[i, j] = Σ_k A[i, k] · t2[j, k] · {L_q 2 · V[q]}[j], wsum[j] = Σ_k t2[j, k].
template <>
inline ir::program build<prepared_base + 1>() {
  auto f64 = [](std::string name, std::vector<std::int64_t> shape, ir::tensor_role role) {
    return ir::tensor{std::move(name), ir::dtype::f64, std::move(shape), role};
  };
  auto A = f64("A", {5, 6}, ir::tensor_role::input), W = f64("W", {6, 8}, ir::tensor_role::weight),
       V = f64("V", {8}, ir::tensor_role::weight);
  auto t1 = ir::make_scope({{"k", 0, 6}, {"j", 0, 8}}, {},
                           ir::make_constant(0.5) * read(W, {idx("k"), idx("j")}) + read(V, {idx("j")}));
  auto T1 = f64("t1", {6, 8}, ir::tensor_role::definition), T2 = f64("t2", {8, 6}, ir::tensor_role::definition);
  auto t2 = ir::make_scope({{"j", 0, 8}, {"k", 0, 6}}, {},
                           ir::make_unary(ir::unary_fn::tanh, read(T1, {idx("k"), idx("j")})));
  auto scale = ir::make_scope({{"q", 0, 8}}, {}, ir::make_constant(2) * read(V, {idx("q")}));
  auto out = ir::make_scope({{"i", 0, 5}, {"j", 0, 8}}, {{"k", 0, 6}},
                            read(A, {idx("i"), idx("k")}) * read(T2, {idx("j"), idx("k")}) *
                                ir::make_access(scale, {idx("j")}));
  auto wsum = ir::make_scope({{"j", 0, 8}}, {{"k", 0, 6}}, read(T2, {idx("j"), idx("k")}));
  return {"prepared_chain",
          {A, W, V},
          {{"t1", t1, ir::dtype::f64},
           {"t2", t2, ir::dtype::f64},
           {"out", out, ir::dtype::f64},
           {"wsum", wsum, ir::dtype::f64}},
          {"out", "wsum"}};
}

/// Searched (optimize_program, explore depth 1): a transposed, scaled weight read by a product
/// whose rows start one before its input's (A read off its box), then a stencil that reads past
/// the product's rows:
/// t[k, j] = 0.5 · W[j, k], h[i, j] = Σ_k A[i - 1, k] · t[k, j] for i in [0, 6),
/// out[i, j] = tanh(h[i, j] + h[i + 2, j]).
template <>
inline ir::program build<prepared_base + 2>() {
  auto A = f32("A", {5, 3}), W = f32("W", {4, 3}, ir::tensor_role::weight);
  ir::tensor T{"t", ir::dtype::f32, {3, 4}, ir::tensor_role::definition};
  ir::tensor H{"h", ir::dtype::f32, {6, 4}, ir::tensor_role::definition};
  auto t = ir::make_scope({{"k", 0, 3}, {"j", 0, 4}}, {},
                          read(W, {idx("j"), idx("k")}) * ir::make_constant(0.5));
  auto h = ir::make_scope({{"i", 0, 6}, {"j", 0, 4}}, {{"k", 0, 3}},
                          read(A, {idx("i") - 1, idx("k")}) * read(T, {idx("k"), idx("j")}));
  auto out = ir::make_scope({{"i", 0, 5}, {"j", 0, 4}}, {},
                            ir::make_unary(ir::unary_fn::tanh, read(H, {idx("i"), idx("j")}) +
                                                                   read(H, {idx("i") + 2, idx("j")})));
  return {"prepared_searched",
          {A, W},
          {{"t", t, ir::dtype::f32}, {"h", h, ir::dtype::f32}, {"out", out, ir::dtype::f32}},
          {"out"}};
}

inline constexpr hand_program<prepared_base> prepared_relayout;
inline constexpr hand_program<prepared_base + 1> prepared_chain;
inline constexpr hand_program<prepared_base + 2> prepared_searched;

/// The C++ names of the objects, in Id order; the last one's plan comes from the search.
inline constexpr const char* prepared_names[prepared_count] = {"prepared_relayout", "prepared_chain",
                                                               "prepared_searched"};

}  // namespace ein_test
