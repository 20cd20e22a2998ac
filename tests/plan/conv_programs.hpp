// Convolution programs the plan and library-step tests bind: an NHWC convolution with a
// chosen filter format and padding, a strided 1×1 convolution, a batch of products and a transposed
// convolution.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ein/ir/expr.hpp"

namespace plan_test {

inline ein::ir::tensor f32(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), ein::ir::dtype::f32, std::move(shape), ein::ir::tensor_role::input};
}

// out[n, h, w, f] = Σ_{r,s,c} X[n, h+r-pad, w+s-pad, c] · filter: NHWC, an r×r kernel read at
// [f, r, s, c] (KRSC) or, with `rsfc`, at [r, s, f, c] (no cuDNN format), in element type `type`.
inline ein::ir::program conv(std::int64_t r, std::int64_t pad, bool rsfc = false,
                             ein::ir::dtype type = ein::ir::dtype::f32) {
  namespace ir = ein::ir;
  using ir::idx;
  auto typed = [type](ir::tensor t) {
    t.type = type;
    return t;
  };
  auto X = typed(f32("X", {2, 16, 16, 8}));
  auto K = typed(rsfc ? f32("K", {r, r, 16, 8}) : f32("K", {16, r, r, 8}));
  auto kr = rsfc ? std::vector<ir::affine>{idx("r"), idx("s"), idx("f"), idx("c")}
                 : std::vector<ir::affine>{idx("f"), idx("r"), idx("s"), idx("c")};
  auto body = ir::make_scope({{"n", 0, 2}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 16}},
                             {{"r", 0, r}, {"s", 0, r}, {"c", 0, 8}},
                             ir::make_access(X, {idx("n"), idx("h") + idx("r") - pad,
                                                 idx("w") + idx("s") - pad, idx("c")}) *
                                 ir::make_access(K, kr));
  return {"conv", {X, K}, {{"out", body, type}}, {"out"}};
}

// y[n, p, q, f] = Σ_c X[n, 2p, 2q, c] · K[f, c]: NHWC, a 1×1 filter at stride 2 (ResNet-50's
// downsampling convolution, GCN's backbone), which matches as a convolution and as a batch of
// matrix products (one per output row).
inline ein::ir::program strided_1x1(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f) {
  namespace ir = ein::ir;
  using ir::idx;
  auto X = f32("X", {n, hw, hw, c});
  auto K = f32("K", {f, c});
  K.role = ir::tensor_role::weight;
  auto body = ir::make_scope({{"n", 0, n}, {"p", 0, hw / 2}, {"q", 0, hw / 2}, {"f", 0, f}}, {{"c", 0, c}},
                             ir::make_access(X, {idx("n"), idx("p") * 2, idx("q") * 2, idx("c")}) *
                                 ir::make_access(K, {idx("f"), idx("c")}));
  return {"strided_1x1", {X, K}, {{"y", body, ir::dtype::f32}}, {"y"}};
}

// y[b, m, n] = Σ_k Q[b, m, k] · R[b, n, k]: a batch of products (attention's scores), which also
// matches as a grouped convolution of b groups whose 1×k filter spans each row of its image.
inline ein::ir::program batch_of_products(std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k) {
  namespace ir = ein::ir;
  using ir::idx;
  auto Q = f32("Q", {b, m, k}), R = f32("R", {b, n, k});
  auto body = ir::make_scope({{"b", 0, b}, {"m", 0, m}, {"n", 0, n}}, {{"k", 0, k}},
                             ir::make_access(Q, {idx("b"), idx("m"), idx("k")}) *
                                 ir::make_access(R, {idx("b"), idx("n"), idx("k")}));
  return {"batch_of_products", {Q, R}, {{"y", body, ir::dtype::f32}}, {"y"}};
}

// InfoGAN-style transposed convolution: NCHW dy A, (c, f, r, s) filter, stride 2, padding 1.
inline ein::ir::program conv_transpose() {
  namespace ir = ein::ir;
  using ir::idx;
  auto A = f32("A", {2, 16, 8, 8}), K = f32("K", {16, 8, 4, 4});
  auto body = ir::make_scope({{"n", 0, 2}, {"f", 0, 8}, {"h", 0, 16}, {"w", 0, 16}},
                             {{"i", 0, 8}, {"j", 0, 8}, {"c", 0, 16}},
                             ir::make_access(A, {idx("n"), idx("c"), idx("i"), idx("j")}) *
                                 ir::make_access(K, {idx("c"), idx("f"), idx("h") - idx("i") * 2 + 1,
                                                     idx("w") - idx("j") * 2 + 1}));
  return {"deconv", {A, K}, {{"out", body, ir::dtype::f32}}, {"out"}};
}

}  // namespace plan_test
