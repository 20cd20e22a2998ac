// ops::conv2d and ops::conv_transpose2d against hand-written loops, through reify and the interpreter.
#include <doctest/doctest.h>

#include <cstdint>

#include "front/check.hpp"

namespace {

using namespace ein;
using namespace front_test;

template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F,
          std::int64_t R, std::int64_t S, std::int64_t St, std::int64_t P, std::int64_t D>
void conv2d_case() {
  static constexpr std::int64_t oh = (H + 2 * P - D * (R - 1) - 1) / St + 1;
  static constexpr std::int64_t ow = (W + 2 * P - D * (S - 1) - 1) / St + 1;
  auto loop = [](bool nhwc) {
    return [nhwc](eval::bindings& env) {
      eval::dense y(nhwc ? shape{N, oh, ow, F} : shape{N, F, oh, ow});
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t h = 0; h < oh; ++h)
          for (std::int64_t w = 0; w < ow; ++w)
            for (std::int64_t f = 0; f < F; ++f) {
              double acc = 0;
              for (std::int64_t r = 0; r < R; ++r)
                for (std::int64_t s = 0; s < S; ++s)
                  for (std::int64_t c = 0; c < C; ++c) {
                    std::int64_t ih = h * St + r * D - P, iw = w * St + s * D - P;
                    acc += nhwc ? get(env["X"], {n, ih, iw, c}) * get(env["K"], {r, s, f, c})
                                : get(env["X"], {n, c, ih, iw}) * get(env["K"], {f, c, r, s});
                  }
              add_at(y, nhwc ? shape{n, h, w, f} : shape{n, f, h, w}, acc);
            }
      return y;
    };
  };
  {
    constexpr input<"X", float, N, H, W, C> x;
    constexpr weight<"K", float, R, S, F, C> k;
    check(program(ops::conv2d<"y", ops::nhwc, St, P, D>(x, k)), "y", loop(true));
  }
  {
    constexpr input<"X", float, N, C, H, W> x;
    constexpr weight<"K", float, F, C, R, S> k;
    check(program(ops::conv2d<"y", ops::nchw, St, P, D>(x, k)), "y", loop(false));
  }
}

TEST_CASE("ops::conv2d equals the loop: both layouts, stride, padding, dilation") {
  conv2d_case<1, 5, 5, 3, 2, 3, 3, 1, 1, 1>();  // same-size 3x3
  conv2d_case<2, 7, 6, 2, 3, 3, 3, 2, 1, 1>();  // stride 2
  conv2d_case<1, 8, 8, 2, 2, 3, 3, 1, 2, 2>();  // dilation 2, padding 2
  conv2d_case<2, 9, 7, 3, 2, 3, 2, 2, 0, 2>();  // stride and dilation, no padding, 3x2 kernel
  conv2d_case<1, 4, 4, 4, 5, 1, 1, 1, 0, 1>();  // 1x1
}

template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F,
          std::int64_t R, std::int64_t S, std::int64_t St, std::int64_t P>
void conv_transpose2d_case() {
  static constexpr std::int64_t oh = (H - 1) * St - 2 * P + R, ow = (W - 1) * St - 2 * P + S;
  constexpr input<"X", float, N, H, W, C> x;
  constexpr weight<"K", float, R, S, F, C> k;
  // The scatter form: each input pixel adds its kernel-weighted copy to the output.
  auto loop = [](eval::bindings& env) {
    eval::dense y(shape{N, oh, ow, F});
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t i = 0; i < H; ++i)
        for (std::int64_t j = 0; j < W; ++j)
          for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t s = 0; s < S; ++s)
              for (std::int64_t f = 0; f < F; ++f)
                for (std::int64_t c = 0; c < C; ++c) {
                  std::int64_t h = i * St + r - P, w = j * St + s - P;
                  if (h < 0 || h >= oh || w < 0 || w >= ow) continue;
                  add_at(y, {n, h, w, f}, get(env["X"], {n, i, j, c}) * get(env["K"], {r, s, f, c}));
                }
    return y;
  };
  check(program(ops::conv_transpose2d<"y", ops::nhwc, St, P>(x, k)), "y", loop);
}

TEST_CASE("ops::conv_transpose2d equals the scatter loop") {
  conv_transpose2d_case<1, 4, 4, 2, 3, 3, 3, 1, 1>();  // stride 1
  conv_transpose2d_case<2, 3, 4, 2, 2, 3, 3, 2, 1>();  // stride 2, kernel not a multiple
  conv_transpose2d_case<1, 3, 3, 3, 2, 4, 4, 2, 1>();  // stride 2, kernel a multiple
  conv_transpose2d_case<1, 2, 3, 1, 2, 5, 3, 3, 0>();  // stride 3, no padding
  conv_transpose2d_case<1, 3, 3, 2, 2, 2, 2, 2, 0>();  // non-overlapping windows
}

}  // namespace
