// A generated family of convolutions, grouped and depthwise convolutions and transposed
// convolutions behind program objects, for the oneDNN tests of host plans: strides, paddings,
// dilations, groups, data and filter layouts, batch sizes, weights and inputs as filters, float,
// double and bfloat16; and bfloat16 products, which oneDNN's matmul runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "ein/ir/expr.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein_test {

/// The program object of case `K` of the family; its IR comes from onednn_conv(K).
template <int K>
struct onednn_case {};

/// Cases 0..onednn_count-1 (convolutions below onednn_products, bfloat16 products from it on):
/// case 11 is in double (oneDNN has no double convolution); cases from
/// onednn_epilogues on end in an epilogue (onednn_epilogue_of); cases from onednn_wide on are
/// NHWC convolutions of a 1×11 filter padded 5 a side over images 4 to 9 wide (GCN's), which
/// oneDNN runs with an implementation of its own (a GEMM over the image on an AVX2 machine), each
/// ending in a residual; cases from onednn_grouped on are grouped convolutions; cases from
/// onednn_bfloat16 on are cases of onednn_bfloat16_of in bfloat16.
inline constexpr int onednn_count = 35;
inline constexpr int onednn_products = 31;
inline constexpr int onednn_epilogues = 12;
inline constexpr int onednn_wide = 18;
inline constexpr int onednn_grouped = 20;
inline constexpr int onednn_bfloat16 = 26;

/// The float case a bfloat16 case `k` (from onednn_bfloat16 on) takes its convolution from, none
/// scaled: conv2d's of NCHW data at stride 2 (an input filter), dilated too, and of NHWC data;
/// conv_transpose2d's of NHWC and NCHW data.
inline int onednn_bfloat16_of(int k) {
  static constexpr int of[] = {3, 7, 10, 2, 8};
  return of[k - onednn_bfloat16];
}

/// What case `k` (from onednn_epilogues on) adds to its convolution before writing it: a bias per
/// output channel, a residual of the output's shape, ReLU, in the combinations a plan fuses into
/// the call (plan::fuse_epilogues).
struct onednn_epilogue_terms {
  bool bias = false, residual = false, relu = false;
};
inline onednn_epilogue_terms onednn_epilogue_of(int k) {
  static constexpr onednn_epilogue_terms terms[] = {
      {true, false, false}, {true, false, true}, {false, true, true},
      {true, true, true},   {false, false, true}, {true, true, false},
      {false, true, false}, {true, true, true}};
  return k < onednn_epilogues || k >= onednn_grouped ? onednn_epilogue_terms{} : terms[k - onednn_epilogues];
}

/// The capabilities the family's plans are bound for: oneDNN runs every bfloat16 product its
/// matmul takes (first: a product also matches as a degenerate convolution) and every
/// convolution it accepts (plan::onednn_accepts), compute-bound or not, so
/// that every layout of the family reaches the emitter; a build's capabilities (plan::onednn,
/// plan::blas_onednn_bf16) leave memory-bound ones to eOperators.
inline ein::plan::capabilities onednn_only() {
  return {{ein::plan::library{ein::plan::blas.name, &ein::plan::onednn_matmul_accepts, nullptr},
           ein::plan::library{ein::plan::onednn.name, &ein::plan::onednn_accepts, ein::plan::onednn.takes}}};
}

/// Product case `k` (from onednn_products on), in bfloat16 with a random stream of seed k + 1:
///   out[b, i, j] = α · Σ_l A[b, i, l] · B[b, l, j]
/// of 1 to 3 batches (case 33 reads one B for every batch), 3 to 20 rows, columns and terms, A
/// or B stored transposed (odd cases A, cases from 33 on B), α 0.5 in case 32, else 1.
inline ein::ir::program onednn_bf16_product(int k) {
  namespace ir = ein::ir;
  using ir::idx;
  ein::eval::random_stream rng(static_cast<std::uint64_t>(k) + 1);
  const std::int64_t batch = k == onednn_products ? 1 : rng.integer(2, 3), m = rng.integer(3, 20),
                     n = rng.integer(3, 20), l = rng.integer(3, 20);
  const bool a_transposed = k % 2 == 1, b_transposed = k >= onednn_products + 2, shared_b = k == onednn_products + 2;
  using shape = std::vector<std::int64_t>;
  using index = std::vector<ir::affine>;
  const ir::tensor A{"A", ir::dtype::bf16, a_transposed ? shape{batch, l, m} : shape{batch, m, l}, ir::tensor_role::input};
  const shape b_matrix = b_transposed ? shape{n, l} : shape{l, n};
  shape b_shape = b_matrix;
  if (!shared_b) b_shape.insert(b_shape.begin(), batch);
  const ir::tensor B{"B", ir::dtype::bf16, b_shape, ir::tensor_role::weight};
  index b_index = b_transposed ? index{idx("j"), idx("l")} : index{idx("l"), idx("j")};
  if (!shared_b) b_index.insert(b_index.begin(), idx("b"));
  ir::expr body = ir::make_access(A, a_transposed ? index{idx("b"), idx("l"), idx("i")}
                                                  : index{idx("b"), idx("i"), idx("l")}) *
                  ir::make_access(B, b_index);
  if (k == onednn_products + 1) body = ir::make_constant(0.5) * body;
  const std::vector<ir::iterator> out{{"b", 0, batch}, {"i", 0, m}, {"j", 0, n}};
  return {"onednn_conv_" + std::to_string(k), {A, B},
          {{"out", ir::make_scope(out, {{"l", 0, l}}, body), ir::dtype::bf16}}, {"out"}};
}

/// Whether case `k`'s filter is a weight (bound by ein::prepare) rather than an input.
inline bool onednn_weight_filter(int k) { return k % 2 == 0; }

/// `p` (one convolution `out`) with `e`'s terms added after it when it has any:
///   y[i...] = relu?(out[i...] + b[i_channel] + R[i...]),
/// y then the output, out a temporary; the bias `b` a weight, the residual `R` an input.
inline ein::ir::program with_epilogue(ein::ir::program p, onednn_epilogue_terms e, std::size_t channel) {
  namespace ir = ein::ir;
  if (!e.bias && !e.residual && !e.relu) return p;
  const auto& out = p.definitions.front();
  const auto box = out.value->traversal;
  std::vector<ir::affine> at;
  for (auto& it : box) at.push_back(ir::idx(it.name));
  const ir::tensor result{"out", out.type, out.value->shape(), ir::tensor_role::definition};
  ir::expr body = ir::make_access(result, at);
  if (e.bias) {
    const ir::tensor b{"b", out.type, {box[channel].extent()}, ir::tensor_role::weight};
    p.tensors.push_back(b);
    body = body + ir::make_access(b, {at[channel]});
  }
  if (e.residual) {
    const ir::tensor R{"R", out.type, out.value->shape(), ir::tensor_role::input};
    p.tensors.push_back(R);
    body = body + ir::make_access(R, at);
  }
  if (e.relu) body = ir::make_unary(ir::unary_fn::relu, body);
  p.definitions.push_back({"y", ir::make_scope(box, {}, body), out.type});
  p.outputs = {"y"};
  return p;
}

/// A grouped convolution (case `k` from onednn_grouped on) as ONNX's Conv and
/// ops::grouped_conv2d write it: G groups (2 or 3, or depthwise: G = C channels, one channel a
/// filter) of Cg channels and Mg filters each (a depthwise multiplier of 1 in even cases, 2 in odd),
///   out[n, f, p, q] = Σ_{c,r,s} X[n, ⌊f / Mg⌋·Cg + c, p·st + r·d − pad, q·st + s·d − pad] · K[f, c, r, s]
/// with nothing summed over c where Cg = 1 (K read at c = 0); n in [1, 2], 5 to 9 rows and
/// columns, 1 to 3 taps a side, stride 1 or 2, padding 0 to 2, dilation 1 or 2, data NHWC or NCHW
/// (odd and even cases alternate), the filter's four dimensions in a random order.
inline ein::ir::program onednn_grouped_conv(int k) {
  namespace ir = ein::ir;
  using ir::idx;
  ein::eval::random_stream rng(static_cast<std::uint64_t>(k) + 1);
  const bool nhwc = k % 2 == 1, depthwise = k % 3 == 0;
  const std::int64_t groups = depthwise ? rng.integer(8, 16) : rng.integer(2, 3);
  const std::int64_t cg = depthwise ? 1 : rng.integer(2, 4), mg = depthwise ? 1 + k % 2 : rng.integer(4, 6);
  const std::int64_t c = groups * cg, f = groups * mg, n = rng.integer(1, 2), h = rng.integer(5, 9),
                     w = rng.integer(5, 9), r = rng.integer(1, 3), s = rng.integer(2, 3), st = rng.integer(1, 2),
                     pad = rng.integer(0, std::min<std::int64_t>(2, std::min(r, s) - 1)), dil = rng.integer(1, 2);
  const std::int64_t p = (h + 2 * pad - dil * (r - 1) - 1) / st + 1, q = (w + 2 * pad - dil * (s - 1) - 1) / st + 1;
  std::array<int, 4> order{0, 1, 2, 3};
  for (std::size_t d = 3; d > 0; --d)
    std::swap(order[d], order[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(d)))]);
  const std::array<std::int64_t, 4> dims{f, cg, r, s};
  std::vector<std::int64_t> filter_shape;
  for (int d : order) filter_shape.push_back(dims[static_cast<std::size_t>(d)]);
  const auto role = onednn_weight_filter(k) ? ir::tensor_role::weight : ir::tensor_role::input;
  const ir::tensor K{"K", ir::dtype::f32, filter_shape, role};
  const ir::tensor X{"X", ir::dtype::f32,
                     nhwc ? std::vector<std::int64_t>{n, h, w, c} : std::vector<std::int64_t>{n, c, h, w},
                     ir::tensor_role::input};
  const ir::affine channel = cg == 1 ? idx("f").floordiv(mg) : idx("f").floordiv(mg) * cg + idx("c");
  const ir::affine row = idx("p") * st + idx("r") * dil - pad, col = idx("q") * st + idx("s") * dil - pad;
  const std::array<ir::affine, 4> filter_index{idx("f"), cg == 1 ? ir::affine(0) : idx("c"), idx("r"), idx("s")};
  std::vector<ir::affine> k_index;
  for (int d : order) k_index.push_back(filter_index[static_cast<std::size_t>(d)]);
  auto body = ir::make_access(X, nhwc ? std::vector<ir::affine>{idx("n"), row, col, channel}
                                      : std::vector<ir::affine>{idx("n"), channel, row, col}) *
              ir::make_access(K, k_index);
  using box = std::vector<ir::iterator>;
  const box out = nhwc ? box{{"n", 0, n}, {"p", 0, p}, {"q", 0, q}, {"f", 0, f}}
                       : box{{"n", 0, n}, {"f", 0, f}, {"p", 0, p}, {"q", 0, q}};
  box summed{{"r", 0, r}, {"s", 0, s}};
  if (cg > 1) summed.push_back({"c", 0, cg});
  return {"onednn_conv_" + std::to_string(k), {X, K}, {{"out", ir::make_scope(out, summed, body), ir::dtype::f32}},
          {"out"}};
}

/// Case `k` (below onednn_grouped, or from onednn_bfloat16 on: case onednn_bfloat16_of(k) in
/// bfloat16): with a random stream of seed k + 1, a conv2d (two cases of three) or a
/// conv_transpose2d of n in [1, 3] images of 4 to 12 channels, 5 to 9 rows and columns, a filter
/// of 1 to 3 taps a side, stride 1 or 2, padding 0 to 2 (before; the output extent sets the
/// padding after), dilation 1 or 2 (conv2d), data NHWC or NCHW, the filter's four dimensions
/// in a random order, every fourth case scaled by 0.5. conv2d:
///   out[n, f, p, q] = Σ_{c,r,s} X[n, c, p·st + r·d − pad, q·st + s·d − pad] · K[f, c, r, s];
/// conv_transpose2d:
///   out[n, f, h, w] = Σ_{i,j,c} X[n, c, i, j] · K[c, f, h − st·i + pad, w − st·j + pad]
/// (each read in its layout).
inline ein::ir::program onednn_conv(int k) {
  namespace ir = ein::ir;
  using ir::idx;
  if (k >= onednn_products) return onednn_bf16_product(k);
  const std::string name = "onednn_conv_" + std::to_string(k);
  const auto type = k >= onednn_bfloat16         ? ir::dtype::bf16
                    : k == onednn_epilogues - 1 ? ir::dtype::f64
                                                : ir::dtype::f32;
  const auto role = onednn_weight_filter(k) ? ir::tensor_role::weight : ir::tensor_role::input;
  if (k >= onednn_bfloat16) k = onednn_bfloat16_of(k);
  if (k >= onednn_grouped) return onednn_grouped_conv(k);
  ein::eval::random_stream rng(static_cast<std::uint64_t>(k) + 1);
  const bool wide = k >= onednn_wide, transposed = k % 3 == 2 && !wide, nhwc = rng.integer(0, 1) == 1 || wide;
  const std::int64_t n = rng.integer(1, 3), c = rng.integer(4, 12), f = rng.integer(4, 12), h = rng.integer(5, 9),
                     w = rng.integer(wide ? 4 : 5, 9), r = wide ? 1 : rng.integer(1, 3),
                     s = wide ? 11 : rng.integer(1, 3), st = wide ? 1 : rng.integer(1, 2),
                     pad = rng.integer(0, std::min<std::int64_t>(2, std::min(r, s) - 1)),
                     dil = transposed || wide ? 1 : rng.integer(1, 2), pad_col = wide ? 5 : pad;
  // The filter's dimensions (f, c, r, s) in a random order.
  std::array<int, 4> order{0, 1, 2, 3};
  for (std::size_t d = 3; d > 0; --d)
    std::swap(order[d], order[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(d)))]);
  auto data = [&](const std::string& name, std::int64_t ch, std::int64_t rows, std::int64_t cols) {
    using shape = std::vector<std::int64_t>;
    return ir::tensor{name, type, nhwc ? shape{n, rows, cols, ch} : shape{n, ch, rows, cols}, ir::tensor_role::input};
  };
  auto in_layout = [&](ir::affine b, ir::affine channel, ir::affine row, ir::affine col) {
    return nhwc ? std::vector<ir::affine>{b, row, col, channel} : std::vector<ir::affine>{b, channel, row, col};
  };
  const std::array<std::int64_t, 4> dims{transposed ? c : f, transposed ? f : c, r, s};
  std::vector<std::int64_t> filter_shape;
  for (int d : order) filter_shape.push_back(dims[static_cast<std::size_t>(d)]);
  const ir::tensor K{"K", type, filter_shape, role};
  auto filter = [&](ir::affine first, ir::affine second, ir::affine row, ir::affine col) {
    const std::array<ir::affine, 4> index{first, second, row, col};
    std::vector<ir::affine> r_index;
    for (int d : order) r_index.push_back(index[static_cast<std::size_t>(d)]);
    return ir::make_access(K, r_index);
  };
  // Every fourth case scales its products (oneDNN's output scale).
  const auto scaled = [&](ir::expr e) { return k % 4 == 1 ? ir::make_constant(0.5) * e : e; };
  if (!transposed) {
    const std::int64_t p = (h + 2 * pad - dil * (r - 1) - 1) / st + 1,
                       q = (w + 2 * pad_col - dil * (s - 1) - 1) / st + 1;
    const auto X = data("X", c, h, w);
    auto body = scaled(ir::make_access(X, in_layout(idx("n"), idx("c"), idx("p") * st + idx("r") * dil - pad,
                                                    idx("q") * st + idx("s") * dil - pad_col)) *
                       filter(idx("f"), idx("c"), idx("r"), idx("s")));
    using box = std::vector<ir::iterator>;
    const box out = nhwc ? box{{"n", 0, n}, {"p", 0, p}, {"q", 0, q}, {"f", 0, f}}
                         : box{{"n", 0, n}, {"f", 0, f}, {"p", 0, p}, {"q", 0, q}};
    return with_epilogue({name, {X, K},
                          {{"out", ir::make_scope(out, {{"r", 0, r}, {"s", 0, s}, {"c", 0, c}}, body), type}}, {"out"}},
                         onednn_epilogue_of(k), nhwc ? 3 : 1);
  }
  const std::int64_t oh = (h - 1) * st - 2 * pad + r, ow = (w - 1) * st - 2 * pad + s;
  const auto X = data("X", c, h, w);
  auto body = scaled(ir::make_access(X, in_layout(idx("n"), idx("c"), idx("i"), idx("j"))) *
                     filter(idx("c"), idx("f"), idx("h") - idx("i") * st + pad, idx("w") - idx("j") * st + pad));
  using box = std::vector<ir::iterator>;
  const box out = nhwc ? box{{"n", 0, n}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, f}}
                       : box{{"n", 0, n}, {"f", 0, f}, {"h", 0, oh}, {"w", 0, ow}};
  return with_epilogue({name, {X, K},
                        {{"out", ir::make_scope(out, {{"i", 0, h}, {"j", 0, w}, {"c", 0, c}}, body), type}}, {"out"}},
                       onednn_epilogue_of(k), nhwc ? 3 : 1);
}

}  // namespace ein_test

namespace ein {

template <int K>
constexpr std::uint64_t program_key(const ein_test::onednn_case<K>&) {
  return 0xe1d00ULL + K;
}

template <int K>
ir::program reify(const ein_test::onednn_case<K>&, std::string name = "") {
  ir::program p = ein_test::onednn_conv(K);
  if (!name.empty()) p.name = std::move(name);
  return p;
}

}  // namespace ein
