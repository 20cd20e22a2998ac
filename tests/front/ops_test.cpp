// The matrix, band and elementwise operators of ein::ops against hand-written loops.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "front/check.hpp"

namespace ops_test {

namespace {

using namespace ein;
using namespace front_test;

template <std::int64_t M, std::int64_t N, std::int64_t K, ops::transpose T>
void matmul_case() {
  static constexpr bool ta = T == ops::transpose::a || T == ops::transpose::ab;
  static constexpr bool tb = T == ops::transpose::b || T == ops::transpose::ab;
  constexpr input<"A", float, ta ? K : M, ta ? M : K> a;
  constexpr weight<"B", double, tb ? N : K, tb ? K : N> b;
  auto loop = [](eval::bindings& env) {
    eval::dense y(shape{M, N});
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t k = 0; k < K; ++k)
          add_at(y, {m, n},
                 get(env["A"], ta ? shape{k, m} : shape{m, k}) *
                     get(env["B"], tb ? shape{n, k} : shape{k, n}));
    return y;
  };
  check(program(ops::matmul<"y", T>(a, b)), "y", loop);
}

TEST_CASE("ops::matmul equals the loop, with every transposition") {
  matmul_case<3, 4, 5, ops::transpose::none>();
  matmul_case<1, 7, 2, ops::transpose::a>();
  matmul_case<6, 1, 9, ops::transpose::b>();
  matmul_case<4, 3, 2, ops::transpose::ab>();
}

template <std::int64_t B, std::int64_t M, std::int64_t N, std::int64_t K, ops::transpose T>
void batch_matmul_case() {
  static constexpr bool ta = T == ops::transpose::a || T == ops::transpose::ab;
  static constexpr bool tb = T == ops::transpose::b || T == ops::transpose::ab;
  constexpr input<"A", float, B, ta ? K : M, ta ? M : K> a;
  constexpr input<"C", float, B, tb ? N : K, tb ? K : N> c;
  auto loop = [](eval::bindings& env) {
    eval::dense y(shape{B, M, N});
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t n = 0; n < N; ++n)
          for (std::int64_t k = 0; k < K; ++k)
            add_at(y, {b, m, n},
                   get(env["A"], ta ? shape{b, k, m} : shape{b, m, k}) *
                       get(env["C"], tb ? shape{b, n, k} : shape{b, k, n}));
    return y;
  };
  check(program(ops::batch_matmul<"y", T>(a, c)), "y", loop);
}

TEST_CASE("ops::batch_matmul equals the loop") {
  batch_matmul_case<2, 3, 4, 5, ops::transpose::none>();
  batch_matmul_case<3, 2, 2, 3, ops::transpose::b>();
  batch_matmul_case<1, 4, 3, 2, ops::transpose::ab>();
}

template <std::int64_t B, std::int64_t M, std::int64_t K, std::int64_t W, std::int64_t D>
void band_case() {
  constexpr input<"Q", float, B, M, K> q;
  constexpr input<"Kt", float, B, M, K> kt;
  constexpr input<"P", float, B, M, 2 * W + 1> p;
  constexpr input<"V", float, B, M, K> v;
  auto g2bmm_loop = [](eval::bindings& env) {
    eval::dense y(shape{B, M, 2 * W + 1});
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t w = 0; w < 2 * W + 1; ++w)
          for (std::int64_t k = 0; k < K; ++k) {
            std::int64_t j = m + D * (w - W);
            if (j >= 0 && j < M) add_at(y, {b, m, w}, get(env["Q"], {b, m, k}) * get(env["Kt"], {b, j, k}));
          }
    return y;
  };
  auto gbmm_loop = [](eval::bindings& env) {
    eval::dense y(shape{B, M, K});
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t m = 0; m < M; ++m)
        for (std::int64_t n = 0; n < K; ++n)
          for (std::int64_t w = 0; w < 2 * W + 1; ++w) {
            std::int64_t j = m + D * (w - W);
            if (j >= 0 && j < M) add_at(y, {b, m, n}, get(env["P"], {b, m, w}) * get(env["V"], {b, j, n}));
          }
    return y;
  };
  check(program(ops::g2bmm<"y", W, D>(q, kt)), "y", g2bmm_loop);
  check(program(ops::gbmm<"y", W, D>(p, v)), "y", gbmm_loop);
}

TEST_CASE("ops::g2bmm and ops::gbmm equal the loops, dilation 1 and more") {
  band_case<2, 9, 3, 2, 1>();
  band_case<1, 12, 4, 3, 2>();
  band_case<2, 7, 2, 1, 3>();
  band_case<1, 5, 3, 0, 1>();  // a band of width 1
}

TEST_CASE("ops::add, ops::mul, ops::relu equal the loops, ranks 1 to 4, chained") {
  constexpr input<"X", float, 3, 4> x;
  constexpr input<"Y", float, 3, 4> y;
  auto loop2 = [](auto f) {
    return [f](eval::bindings& env) {
      eval::dense out(shape{3, 4});
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t j = 0; j < 4; ++j) add_at(out, {i, j}, f(get(env["X"], {i, j}), get(env["Y"], {i, j})));
      return out;
    };
  };
  check(program(ops::add<"z">(x, y)), "z", loop2([](double a, double b) { return a + b; }));
  check(program(ops::mul<"z">(x, y)), "z", loop2([](double a, double b) { return a * b; }));
  check(program(ops::relu<"z">(ops::add<"s">(x, y))), "z",
        loop2([](double a, double b) { return a + b > 0 ? a + b : 0.0; }));

  constexpr input<"V", double, 5> v;
  check(program(ops::relu<"z">(v)), "z", [](eval::bindings& env) {
    eval::dense out(shape{5});
    for (std::int64_t i = 0; i < 5; ++i) out.data[i] = std::max(0.0, get(env["V"], {i}));
    return out;
  });
  constexpr input<"T", float, 2, 3, 2, 3> t;
  check(program(ops::mul<"z">(t, t)), "z", [](eval::bindings& env) {
    eval::dense out(shape{2, 3, 2, 3});
    for (std::size_t i = 0; i < out.data.size(); ++i) out.data[i] = env["T"].data[i] * env["T"].data[i];
    return out;
  });
}

TEST_CASE("operators chain: a conv block with a residual connection") {
  constexpr input<"X", float, 1, 5, 5, 3> x;
  constexpr weight<"K", float, 3, 3, 3, 3> k;
  static constexpr auto conv = ops::conv2d<"conv", ops::nhwc, 1, 1>(x, k);
  static constexpr auto out = ops::relu<"out">(ops::add<"res">(conv, x));
  check(program(out), "out", [](eval::bindings& env) {
    eval::dense y(shape{1, 5, 5, 3});
    for (std::int64_t h = 0; h < 5; ++h)
      for (std::int64_t w = 0; w < 5; ++w)
        for (std::int64_t f = 0; f < 3; ++f) {
          double acc = get(env["X"], {0, h, w, f});
          for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t s = 0; s < 3; ++s)
              for (std::int64_t c = 0; c < 3; ++c)
                acc += get(env["X"], {0, h + r - 1, w + s - 1, c}) * get(env["K"], {r, s, f, c});
          add_at(y, {0, h, w, f}, acc > 0 ? acc : 0.0);
        }
    return y;
  });
}

}  // namespace

}  // namespace ops_test
