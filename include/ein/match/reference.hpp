// Reference executors of matched operators: plain loops that read flat buffers exactly as the
// library would from the inferred attributes (ld, strides, transposes, padding, band).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ein/detail/error.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

namespace detail {

inline double apply_fn(const std::string& fn, double a, double b) {
  if (fn == "add") return a + b;
  if (fn == "sub") return a - b;
  if (fn == "mul") return a * b;
  if (fn == "div") return a / b;
#define EIN_APPLY_ITEM(n) \
  if (fn == #n) return eval::detail::apply(ir::unary_fn::n, a);
  EIN_FOR_EACH_UNARY_FN(EIN_APPLY_ITEM)
#undef EIN_APPLY_ITEM
  throw internal_error("unknown elementwise function " + fn);
}

template <class T>
void run_gemm(const gemm_attrs& g, const T* A, const T* B, T* C) {
  for (std::int64_t q = 0; q < g.batch; ++q)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (std::int64_t k = 0; k < g.k; ++k) {
          double a = A[q * g.stride_a + (g.trans_a ? k * g.lda + i : i * g.lda + k)];
          double b = B[q * g.stride_b + (g.trans_b ? j * g.ldb + k : k * g.ldb + j)];
          acc += a * b;
        }
        C[q * g.stride_c + i * g.ldc + j] = static_cast<T>(g.alpha * acc);
      }
}

inline std::int64_t at(const std::array<std::int64_t, 4>& s, std::int64_t i0, std::int64_t i1,
                       std::int64_t i2, std::int64_t i3) {
  return i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3];
}

// Calls f(n, k, p, q, c, r, s, h, w) for every in-range pair of the convolution: input row
// h = p·stride + r·dilation − pad inside [0, h), likewise for columns.
template <class F>
void conv_pairs(const conv_attrs& a, F f) {
  for (std::int64_t n = 0; n < a.n; ++n)
    for (std::int64_t k = 0; k < a.k; ++k)
      for (std::int64_t p = 0; p < a.p; ++p)
        for (std::int64_t q = 0; q < a.q; ++q)
          for (std::int64_t c = 0; c < a.c; ++c)
            for (std::int64_t r = 0; r < a.r; ++r)
              for (std::int64_t s = 0; s < a.s; ++s) {
                std::int64_t h = p * a.stride_h + r * a.dilation_h - a.pad_h;
                std::int64_t v = q * a.stride_w + s * a.dilation_w - a.pad_w;
                if (h >= 0 && h < a.h && v >= 0 && v < a.w) f(n, k, p, q, c, r, s, h, v);
              }
}

// cuDNN's forward convolution: y[n,k,p,q] = alpha Σ x[n,c,h,w] · w[k,c,r,s].
template <class T>
void run_conv_forward(const conv_attrs& a, const T* x, const T* w, T* y) {
  for (std::int64_t n = 0; n < a.n; ++n)
    for (std::int64_t k = 0; k < a.k; ++k)
      for (std::int64_t p = 0; p < a.p; ++p)
        for (std::int64_t q = 0; q < a.q; ++q) y[at(a.y_strides, n, k, p, q)] = 0;
  conv_pairs(a, [&](auto n, auto k, auto p, auto q, auto c, auto r, auto s, auto h, auto v) {
    y[at(a.y_strides, n, k, p, q)] +=
        static_cast<T>(a.alpha * w[at(a.w_strides, k, c, r, s)] * x[at(a.x_strides, n, c, h, v)]);
  });
}

// cuDNN's backward data: dx[n,c,h,w] = alpha Σ dy[n,k,p,q] · w[k,c,r,s] over the same pairs.
template <class T>
void run_conv_backward_data(const conv_attrs& a, const T* dy, const T* w, T* dx) {
  for (std::int64_t n = 0; n < a.n; ++n)
    for (std::int64_t c = 0; c < a.c; ++c)
      for (std::int64_t h = 0; h < a.h; ++h)
        for (std::int64_t v = 0; v < a.w; ++v) dx[at(a.x_strides, n, c, h, v)] = 0;
  conv_pairs(a, [&](auto n, auto k, auto p, auto q, auto c, auto r, auto s, auto h, auto v) {
    dx[at(a.x_strides, n, c, h, v)] +=
        static_cast<T>(a.alpha * w[at(a.w_strides, k, c, r, s)] * dy[at(a.y_strides, n, k, p, q)]);
  });
}

template <class T>
void run_band(const band_attrs& a, bool g2, const T* A, const T* B, T* O) {
  std::int64_t span = 2 * a.width + 1;
  auto& as = a.a_strides;
  auto& bs = a.b_strides;
  auto& os = a.o_strides;
  for (std::int64_t b = 0; b < a.batch; ++b)
    for (std::int64_t m = 0; m < a.m; ++m)
      for (std::int64_t j = 0; j < (g2 ? span : a.features); ++j) {
        double acc = 0;
        for (std::int64_t t = 0; t < (g2 ? a.features : span); ++t) {
          std::int64_t w = g2 ? j : t, f = g2 ? t : j;
          std::int64_t row = m + a.dilation * (w - a.width);
          if (row < 0 || row >= a.m) continue;
          acc += A[b * as[0] + m * as[1] + t * as[2]] * B[b * bs[0] + row * bs[1] + f * bs[2]];
        }
        O[b * os[0] + m * os[1] + j * os[2]] = static_cast<T>(a.alpha * acc);
      }
}

}  // namespace detail

/// Runs `op` on flat buffers the way its library call would: `inputs[t]` is the whole flattened
/// source of input t (the operand's offset is applied here), `output` the scope's value
/// (row-major over its traversal, every element written).
template <class T>
void execute(const instance& op, std::span<const T* const> inputs, T* output) {
  if (inputs.size() != op.inputs.size()) throw internal_error("execute: wrong number of inputs");
  const T* a = inputs[0] + op.inputs[0].offset;
  const T* b = inputs.size() > 1 ? inputs[1] + op.inputs[1].offset : nullptr;
  switch (op.kind) {
    case op_kind::elementwise: {
      auto& e = op.elementwise();
      for (std::int64_t i = 0; i < e.count; ++i)
        output[i] =
            static_cast<T>(detail::apply_fn(e.fn, a[i], b ? static_cast<double>(b[i]) : 0.0));
      return;
    }
    case op_kind::matmul:
    case op_kind::batch_matmul: detail::run_gemm(op.gemm(), a, b, output); return;
    case op_kind::conv2d: detail::run_conv_forward(op.conv(), a, b, output); return;
    case op_kind::conv_transpose2d: detail::run_conv_backward_data(op.conv(), a, b, output); return;
    case op_kind::g2bmm: detail::run_band(op.band(), true, a, b, output); return;
    case op_kind::gbmm: detail::run_band(op.band(), false, a, b, output); return;
  }
  throw internal_error("execute: unknown operator");
}

}  // namespace ein::match
