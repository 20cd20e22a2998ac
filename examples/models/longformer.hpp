// One Longformer layer (Beltagy et al., 2020), its dilated sliding-window attention written with
// defs: Q/K/V projections split into heads, G2BMM, softmax, GBMM, the output projection and a
// two-layer feed-forward, each with a residual add.
#pragma once

#include <cstdint>

#include "ein/ein.hpp"

namespace models {

namespace longformer_layers {

/// √v for v ≥ 1 at compile time (Newton's iteration): the attention's scale.
constexpr double root(double v) {
  double r = v;
  for (int step = 0; step < 64; ++step) r = (r + v / r) / 2;
  return r;
}

}  // namespace longformer_layers

/// One Longformer layer at batch Batch on a (Batch, Seq, Features) sequence, Heads heads of
/// Features / Heads features each, attention over a window of half width W at dilation D, a
/// feed-forward of Hidden units (defaults: EinNet's configuration, sequence 10000, 512 features,
/// 8 heads, w = 1000 each side, dilation 4, 4·512 hidden). Per head h, with dh = Features / Heads:
///   q[b, h, m, k]      = Σ_i x[b, m, i] · Wq[h·dh + k, i]                        (likewise k, v)
///   scores[b, h, m, w] = Σ_k q[b, h, m, k] · key[b, h, m + D·(w − W), k] / √dh   (G2BMM)
///   p                  = softmax over w of scores
///   ctx[b, h, m, n]    = Σ_w p[b, h, m, w] · v[b, h, m + D·(w − W), n]           (GBMM)
///   a[b, m, o]         = x[b, m, o] + Σ_{h,n} ctx[b, h, m, n] · Wo[o, h·dh + n]
///   y                  = a + (relu(a · W1ᵀ + b1) · W2ᵀ + b2)
/// Keys past either end of the sequence read zero (a score of 0, which softmax counts: there is
/// no mask). Output (Batch, Seq, Features).
/// Every input and weight is a T (float, or ein::bfloat16 or ein::half for the network in 16 bits).
///
///     inline constexpr auto& net = models::longformer<1>::net;
template <std::int64_t Batch, std::int64_t Seq = 10000, std::int64_t Features = 512, std::int64_t Heads = 8,
          std::int64_t W = 1000, std::int64_t D = 4, std::int64_t Hidden = 4 * Features, class T = float>
struct longformer {
  static constexpr std::int64_t dh = Features / Heads, head_count = Heads, half_window = W, dilation = D;
  static_assert(dh * Heads == Features, "models::longformer: Heads divides Features");
  static constexpr ein::var<"b"> b{};
  static constexpr ein::var<"h"> h{};
  static constexpr ein::var<"m"> m{};
  static constexpr ein::var<"k"> k{};
  static constexpr ein::var<"n"> n{};
  static constexpr ein::var<"w"> w{};
  static constexpr ein::var<"i"> i{};
  static constexpr ein::var<"o"> o{};
  static constexpr ein::input<"x", T, Batch, Seq, Features> x{};
  static constexpr ein::weight<"Wq", T, Features, Features> Wq{};  // (out, in)
  static constexpr ein::weight<"Wk", T, Features, Features> Wk{};
  static constexpr ein::weight<"Wv", T, Features, Features> Wv{};
  static constexpr ein::weight<"Wo", T, Features, Features> Wo{};
  static constexpr ein::weight<"W1", T, Hidden, Features> W1{};
  static constexpr ein::weight<"b1", T, Hidden> b1{};
  static constexpr ein::weight<"W2", T, Features, Hidden> W2{};
  static constexpr ein::weight<"b2", T, Features> b2{};

  static constexpr auto heads = ein::over(b, h.template in<0, Heads>, m, k.template in<0, dh>);
  static constexpr auto q = ein::def<"q">(heads, ein::sum(i)(x(b, m, i) * Wq(h * dh + k, i)));
  static constexpr auto key = ein::def<"key">(heads, ein::sum(i)(x(b, m, i) * Wk(h * dh + k, i)));
  static constexpr auto v = ein::def<"v">(heads, ein::sum(i)(x(b, m, i) * Wv(h * dh + k, i)));
  static constexpr float scale = static_cast<float>(1 / longformer_layers::root(dh));
  static constexpr auto scores = ein::def<"scores">(  // G2BMM, (b, h, m, 2W + 1)
      ein::over(b, h, m, w.template in<0, 2 * W + 1>), ein::sum(k)(q(b, h, m, k) * key(b, h, m + w * D - W * D, k) * scale));
  static constexpr auto p = ein::ops::softmax<"p">(scores);
  static constexpr auto ctx = ein::def<"ctx">(  // GBMM, (b, h, m, dh)
      ein::over(b, h, m, n.template in<0, dh>), ein::sum(w)(p(b, h, m, w) * v(b, h, m + w * D - W * D, n)));
  static constexpr auto attention = ein::def<"attention">(
      ein::over(b, m, o.template in<0, Features>), ein::sum(h, n)(ctx(b, h, m, n) * Wo(o, h * dh + n)));
  static constexpr auto a = ein::ops::add<"a">(x, attention);
  static constexpr auto hidden = ein::ops::relu<"hidden">(ein::ops::bias_add<"hidden_b">(
      ein::def<"hidden_m">(ein::over(b, m, o.template in<0, Hidden>), ein::sum(i)(a(b, m, i) * W1(o, i))), b1));
  static constexpr auto ffn = ein::ops::bias_add<"ffn">(
      ein::def<"ffn_m">(ein::over(b, m, o.template in<0, Features>), ein::sum(i)(hidden(b, m, i) * W2(o, i))), b2);
  static constexpr auto y = ein::ops::add<"y">(a, ffn);
  static constexpr auto net = ein::program(y);
};

}  // namespace models
