// A generated family of programs for the program level: chains of matrix products, or of
// convolutions (strided, padded) and transposed convolutions written as ops::conv_transpose2d
// writes them (a scatter: `/` and `%` in the indices), with weights stored in random dimension
// orders and activations either nested in a definition or a definition of their own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/e2e/searched_family.hpp"
#include "ein/codegen/backend.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/expr.hpp"

namespace program_family {

namespace ir = ein::ir;
using ir::idx;

using ein_test::family::tensor;
using ein_test::family::weight_read;

/// The transposed convolution of `x` (NHWC [N, H, W, C]) with a filter read by `filter` at the
/// logical index [r, s, f, c] (extents R × S, F outputs), as ops::conv_transpose2d writes it:
///   y[n, h, w, f] = Σ_{u,v,c} x[n, (h + pad)/st − u, (w + pad)/st − v, c]
///                              · K[st·u + (h + pad) % st, st·v + (w + pad) % st, f, c]
/// over h in [0, (H − 1)·st − 2·pad + R + out_pad), u in [0, ⌈R/st⌉) (likewise w, v).
/// Example: `conv_transpose_scatter(X, 4, 4, 8, 2, 1, 0, read)` is InfoGAN's layer on X.
template <class Filter>
ir::scope_ptr conv_transpose_scatter(const ir::tensor& x, std::int64_t R, std::int64_t S, std::int64_t F,
                                     std::int64_t st, std::int64_t pad, std::int64_t out_pad, Filter&& filter) {
  std::int64_t oh = (x.shape[1] - 1) * st - 2 * pad + R + out_pad, ow = (x.shape[2] - 1) * st - 2 * pad + S + out_pad;
  auto hh = idx("h") + pad, ww = idx("w") + pad;
  auto xr = ir::make_access(x, {idx("n"), hh.floordiv(st) - idx("u"), ww.floordiv(st) - idx("v"), idx("c")});
  auto kr = filter(std::vector<ir::affine>{idx("u") * st + hh.mod(st), idx("v") * st + ww.mod(st), idx("f"), idx("c")});
  return ir::make_scope({{"n", 0, x.shape[0]}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, F}},
                        {{"u", 0, (R + st - 1) / st}, {"v", 0, (S + st - 1) / st}, {"c", 0, x.shape[3]}}, xr * kr);
}

/// A host build with a CPU BLAS, and a cuda build with cuBLAS and cuDNN: the builds the family is
/// priced for.
inline const ein::plan::capabilities& host_blas() {
  static const auto c = ein::codegen::capabilities_of(ein::codegen::backend::host, true, false);
  return c;
}
inline const ein::plan::capabilities& cuda_build() {
  static const auto c = ein::codegen::capabilities_of(ein::codegen::backend::cuda, false, true);
  return c;
}

/// Program `seed` of the family: by seed % 2, (0) X [m, k] through one to three products with
/// weights [k, n] (compute-bound sizes), or (1) an NHWC image through one to three layers, each a
/// k×k convolution (k 1 or 3, stride 1 or 2, padding 0 or k/2, k/2 where 0 would leave no
/// output) or a transposed convolution (stride 1 to 3, kernel 2 to 4, padding 0 or 1, 0 where 1
/// would leave no output); after a layer relu, sigmoid or tanh nested in its definition, in a
/// definition of its own, or none. The output is the last definition: every program verifies.
inline ir::program chain(std::uint64_t seed) {
  ein::eval::random_stream rng(seed * 0x9e3779b97f4a7c15ULL + 11);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
  std::vector<ir::tensor> tensors;
  std::vector<ir::definition> defs;
  const bool image = seed % 2 == 1;
  tensors.push_back(image ? tensor("X", {1, pick(3, 6), pick(3, 6), pick(4, 12)}, ir::tensor_role::input)
                          : tensor("X", {pick(16, 48), pick(16, 48)}, ir::tensor_role::input));
  ir::tensor current = tensors.back();
  auto layers = pick(1, 3);
  for (std::int64_t l = 0; l < layers; ++l) {
    auto name = "d" + std::to_string(defs.size());
    auto w = "W" + std::to_string(l);
    ir::scope_ptr layer;
    if (!image) {
      std::int64_t n = pick(16, 48);
      auto x = ir::make_access(current, {idx("i"), idx("k")});
      layer = ir::make_scope({{"i", 0, current.shape[0]}, {"j", 0, n}}, {{"k", 0, current.shape[1]}},
                             x * weight_read(w, {current.shape[1], n}, {idx("k"), idx("j")}, rng, tensors));
    } else {
      std::int64_t F = pick(4, 12), C = current.shape[3];
      bool transposed = current.shape[1] <= 8 && pick(0, 1) == 1;
      if (transposed) {
        std::int64_t st = pick(1, 3), R = pick(2, 4), pad = pick(0, 1);
        if ((std::min(current.shape[1], current.shape[2]) - 1) * st + R - 2 * pad <= 0) pad = 0;  // no output otherwise
        layer = conv_transpose_scatter(current, R, R, F, st, pad, 0, [&](const std::vector<ir::affine>& at) {
          return weight_read(w, {R, R, F, C}, at, rng, tensors);
        });
      } else {
        std::int64_t k = pick(0, 1) ? 3 : 1, st = pick(1, 2), pad = pick(0, 1) ? k / 2 : 0;
        auto extent = [&](std::int64_t in) { return (in + 2 * pad - k) / st + 1; };
        if (std::min(extent(current.shape[1]), extent(current.shape[2])) <= 0) pad = k / 2;  // no output otherwise
        std::int64_t oh = extent(current.shape[1]), ow = extent(current.shape[2]);
        auto x = ir::make_access(current, {idx("n"), idx("h") * st + idx("r") - pad, idx("w") * st + idx("s") - pad, idx("c")});
        layer = ir::make_scope({{"n", 0, 1}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, F}}, {{"r", 0, k}, {"s", 0, k}, {"c", 0, C}},
                               x * weight_read(w, {k, k, F, C}, {idx("r"), idx("s"), idx("f"), idx("c")}, rng, tensors));
      }
    }
    static constexpr ir::unary_fn activations[] = {ir::unary_fn::relu, ir::unary_fn::sigmoid, ir::unary_fn::tanh};
    auto fn = activations[pick(0, 2)];
    std::vector<ir::affine> at;
    for (auto& i : layer->traversal) at.push_back(idx(i.name));
    auto placement = pick(0, 2);  // 0: nested, 1: a definition of its own, 2: none
    if (placement == 0) layer = ir::make_scope(layer->traversal, {}, ir::make_unary(fn, ir::make_access(layer, at)));
    defs.push_back({name, layer, ir::dtype::f32});
    current = tensor(name, layer->shape(), ir::tensor_role::definition);
    if (placement == 1) {
      auto act = ir::make_scope(layer->traversal, {}, ir::make_unary(fn, ir::make_access(current, at)));
      defs.push_back({name + "_act", act, ir::dtype::f32});
      current = tensor(defs.back().name, act->shape(), ir::tensor_role::definition);
    }
  }
  return {"chain_" + std::to_string(seed), tensors, defs, {defs.back().name}};
}

}  // namespace program_family
