// Typical operators built by hand with the IR helpers, shared by the IR tests.
#pragma once

#include <cstdint>

#include "ein/ir/expr.hpp"

namespace ein::test {

using namespace ein::ir;

/// L_{i,j} Σ_k A[i, k] * B[k, j]
inline scope_ptr matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  tensor A{"A", dtype::f32, {m, k}}, B{"B", dtype::f32, {k, n}};
  return make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                    make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k"), idx("j")}));
}

/// 3x3 convolution, NHWC, padding 1: L_{n,h,w,f} Σ_{r,s,c} A[n, h + r - 1, w + s - 1, c] * K[r, s,
/// f, c], A and K of element types a and k
inline scope_ptr conv3x3(std::int64_t n, std::int64_t hw, std::int64_t f, std::int64_t c, dtype a = dtype::f32,
                         dtype k = dtype::f32) {
  tensor A{"A", a, {n, hw, hw, c}}, K{"K", k, {3, 3, f, c}, tensor_role::weight};
  return make_scope(
      {{"n", 0, n}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}},
      {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, c}},
      make_access(A, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
          make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

/// 3x3 max pooling, stride 2, padding 1, NHWC: L_{n,h,w,c} max_{r,s} A[n, 2h + r - 1, 2w + s - 1,
/// c]; the padded points are left out (PyTorch's MaxPool2d).
inline scope_ptr max_pool3x3(std::int64_t n, std::int64_t hw, std::int64_t c) {
  tensor A{"A", dtype::f32, {n, hw, hw, c}};
  std::int64_t out = (hw - 1) / 2 + 1;
  return make_scope(
      {{"n", 0, n}, {"h", 0, out}, {"w", 0, out}, {"c", 0, c}}, {{"r", 0, 3}, {"s", 0, 3}},
      make_access(A, {idx("n"), 2 * idx("h") + idx("r") - 1, 2 * idx("w") + idx("s") - 1, idx("c")}),
      reduction::max);
}

/// Dilated G2BMM (band attention): L_{b,i,w} Σ_k Q[b, i, k] * K[b, i + d*(w - W), k], w in [0,
/// 2W+1).
inline scope_ptr g2bmm(std::int64_t b, std::int64_t m, std::int64_t k, std::int64_t width,
                       std::int64_t dilation) {
  tensor Q{"Q", dtype::f32, {b, m, k}}, K{"K", dtype::f32, {b, m, k}};
  return make_scope(
      {{"b", 0, b}, {"i", 0, m}, {"w", 0, 2 * width + 1}}, {{"k", 0, k}},
      make_access(Q, {idx("b"), idx("i"), idx("k")}) *
          make_access(K, {idx("b"), idx("i") + dilation * (idx("w") - width), idx("k")}));
}

/// A padded copy as a nested scope with a negative lower bound, read with an offset:
/// L_{i:[0,5)} Σ_{t:[-1,2)} {L_{a:[-1,6)} A[a] * 2}[i + t] * W[t + 1]
inline scope_ptr nested_stencil() {
  tensor A{"A", dtype::f32, {5}}, W{"W", dtype::f32, {3}, tensor_role::weight};
  auto padded = make_scope({{"a", -1, 6}}, {}, make_access(A, {idx("a")}) * make_constant(2));
  return make_scope({{"i", 0, 5}}, {{"t", -1, 2}},
                    make_access(padded, {idx("i") + idx("t")}) * make_access(W, {idx("t") + 1}));
}

}  // namespace ein::test
