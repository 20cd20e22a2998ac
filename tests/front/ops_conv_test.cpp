// ops::conv2d (per-axis attributes, three filter layouts), ops::grouped_conv2d,
// ops::depthwise_conv2d and ops::conv_transpose2d against hand-written loops, through reify and
// the interpreter.
#include <doctest/doctest.h>

#include <cstdint>

#include "front/check.hpp"

namespace ops_conv_test {

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
          std::int64_t R, std::int64_t S, std::int64_t St, std::int64_t P, std::int64_t Out = 0>
void conv_transpose2d_case() {
  static constexpr std::int64_t oh = (H - 1) * St - 2 * P + R + Out, ow = (W - 1) * St - 2 * P + S + Out;
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
  check(program(ops::conv_transpose2d<"y", ops::nhwc, St, P, Out>(x, k)), "y", loop);
}

TEST_CASE("ops::conv_transpose2d equals the scatter loop") {
  conv_transpose2d_case<1, 4, 4, 2, 3, 3, 3, 1, 1>();  // stride 1
  conv_transpose2d_case<2, 3, 4, 2, 2, 3, 3, 2, 1>();  // stride 2, kernel not a multiple
  conv_transpose2d_case<1, 3, 3, 3, 2, 4, 4, 2, 1>();  // stride 2, kernel a multiple
  conv_transpose2d_case<1, 2, 3, 1, 2, 5, 3, 3, 0>();  // stride 3, no padding
  conv_transpose2d_case<1, 3, 3, 2, 2, 2, 2, 2, 0>();  // non-overlapping windows
}

TEST_CASE("ops::conv_transpose2d with output padding equals the scatter loop on the larger output") {
  conv_transpose2d_case<1, 4, 4, 2, 1, 9, 9, 2, 4, 1>();  // FSRCNN's last layer, smaller
  conv_transpose2d_case<2, 3, 4, 2, 2, 3, 3, 2, 1, 1>();  // stride 2, kernel not a multiple
  conv_transpose2d_case<1, 3, 2, 1, 2, 4, 3, 3, 1, 2>();  // stride 3, two extra rows
}

// The filter's index of (r, s, f, c) in layout Fl.
template <ops::filter Fl>
shape filter_at(std::int64_t r, std::int64_t s, std::int64_t f, std::int64_t c) {
  if constexpr (Fl == ops::filter::rsfc) return shape{r, s, f, c};
  if constexpr (Fl == ops::filter::kcrs) return shape{f, c, r, s};
  if constexpr (Fl == ops::filter::rscf) return shape{r, s, c, f};
  if constexpr (Fl == ops::filter::krsc) return shape{f, r, s, c};
}

// The convolution as loops: G groups of C/G channels, filter f (of F, F/G a group) reading
// channel ⌊f / (F/G)⌋·C/G + c of x; per-axis stride, padding and dilation; the filter in layout
// Fl with C/G channels.
template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F, std::int64_t R,
          std::int64_t S, std::int64_t G, ops::hw St, ops::hw P, ops::hw D, ops::data_format L, ops::filter Fl>
eval::dense conv2d_loop(eval::bindings& env) {
  constexpr std::int64_t oh = (H + 2 * P.h - D.h * (R - 1) - 1) / St.h + 1;
  constexpr std::int64_t ow = (W + 2 * P.w - D.w * (S - 1) - 1) / St.w + 1;
  constexpr std::int64_t cg = C / G, mg = F / G;
  constexpr bool nhwc = L == ops::data_format::nhwc;
  eval::dense y(nhwc ? shape{N, oh, ow, F} : shape{N, F, oh, ow});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t h = 0; h < oh; ++h)
      for (std::int64_t w = 0; w < ow; ++w)
        for (std::int64_t f = 0; f < F; ++f)
          for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t s = 0; s < S; ++s)
              for (std::int64_t c = 0; c < cg; ++c) {
                std::int64_t ih = h * St.h + r * D.h - P.h, iw = w * St.w + s * D.w - P.w, ic = f / mg * cg + c;
                double x = nhwc ? get(env["X"], {n, ih, iw, ic}) : get(env["X"], {n, ic, ih, iw});
                add_at(y, nhwc ? shape{n, h, w, f} : shape{n, f, h, w}, x * get(env["K"], filter_at<Fl>(r, s, f, c)));
              }
  return y;
}

// Per-axis stride, padding and dilation, and the filter in layout Fl.
template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F, std::int64_t R,
          std::int64_t S, ops::hw St, ops::hw P, ops::hw D, ops::data_format L, ops::filter Fl>
void conv2d_axes_case() {
  static constexpr activation<L == ops::data_format::nhwc, N, H, W, C> x;
  static constexpr filter_weight<Fl, R, S, F, C> k;
  check(program(ops::conv2d<"y", L, St, P, D, Fl>(x, k)), "y", conv2d_loop<N, H, W, C, F, R, S, 1, St, P, D, L, Fl>);
}

TEST_CASE("ops::conv2d equals the loop with per-axis stride, padding and dilation, in every filter layout") {
  using ops::hw;
  // GCN's separable pair: 1x11 with padding 0x5 and 11x1 with 5x0, each in three filter layouts.
  conv2d_axes_case<1, 6, 13, 2, 3, 1, 11, 1, hw{0, 5}, 1, ops::nhwc, ops::rsfc>();
  conv2d_axes_case<1, 13, 6, 2, 3, 11, 1, 1, hw{5, 0}, 1, ops::nchw, ops::kcrs>();
  conv2d_axes_case<2, 5, 9, 3, 2, 1, 7, 1, hw{0, 3}, 1, ops::nhwc, ops::rscf>();
  conv2d_axes_case<1, 9, 5, 2, 2, 7, 1, 1, hw{3, 0}, 1, ops::nchw, ops::rsfc>();
  // Different strides and dilations per axis, in the non-default filter layouts.
  conv2d_axes_case<2, 9, 8, 2, 3, 3, 2, hw{2, 1}, hw{1, 0}, hw{1, 2}, ops::nhwc, ops::kcrs>();
  conv2d_axes_case<1, 7, 10, 3, 2, 2, 3, hw{1, 3}, hw{0, 2}, hw{2, 1}, ops::nchw, ops::rscf>();
  conv2d_axes_case<1, 6, 6, 2, 4, 3, 3, 2, 1, 1, ops::nhwc, ops::rscf>();
  conv2d_axes_case<1, 6, 7, 3, 4, 3, 2, hw{2, 1}, hw{1, 0}, hw{1, 2}, ops::nhwc, ops::krsc>();
  conv2d_axes_case<1, 5, 6, 2, 3, 2, 3, 1, hw{1, 1}, 1, ops::nchw, ops::krsc>();
}

TEST_CASE("ops::conv2d's square form and its defaults give the program of the spelled-out per-axis form") {
  static constexpr input<"X", float, 1, 9, 8, 3> x;
  static constexpr weight<"K", float, 3, 3, 4, 3> k;
  constexpr auto square = program_key(program(ops::conv2d<"y", ops::nhwc, 2, 1, 2>(x, k)));
  constexpr auto spelled = program_key(program(ops::conv2d<"y", ops::nhwc, ops::hw{2, 2}, ops::hw{1, 1}, ops::hw{2, 2}, ops::rsfc>(x, k)));
  constexpr auto other = program_key(program(ops::conv2d<"y", ops::nhwc, ops::hw{2, 2}, ops::hw{1, 0}, ops::hw{2, 2}>(x, k)));
  CHECK(square == spelled);
  CHECK(square != other);
}

// G groups; G = C is depthwise_conv2d.
template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F, std::int64_t R,
          std::int64_t S, std::int64_t G, ops::hw St, ops::hw P, ops::data_format L, ops::filter Fl>
void grouped_case() {
  constexpr auto loop = conv2d_loop<N, H, W, C, F, R, S, G, St, P, 1, L, Fl>;
  static constexpr activation<L == ops::data_format::nhwc, N, H, W, C> x;
  static constexpr filter_weight<Fl, R, S, F, C / G> k;
  check(program(ops::grouped_conv2d<"y", G, L, St, P, 1, Fl>(x, k)), "y", loop);
  if constexpr (G == C) check(program(ops::depthwise_conv2d<"y", L, St, P, 1, Fl>(x, k)), "y", loop);
}

TEST_CASE("ops::grouped_conv2d and ops::depthwise_conv2d equal the loop: groups, layouts, stride, padding") {
  grouped_case<2, 6, 5, 4, 6, 3, 3, 2, 1, 1, ops::nchw, ops::kcrs>();    // 2 groups, PyTorch's layout
  grouped_case<1, 7, 6, 6, 3, 3, 2, 3, 2, 0, ops::nhwc, ops::rsfc>();    // 3 groups of 2 channels, 1 filter each
  grouped_case<1, 6, 6, 4, 8, 3, 3, 2, 1, 1, ops::nhwc, ops::rscf>();    // 2 groups, TensorFlow's layout
  grouped_case<1, 6, 6, 4, 8, 3, 3, 2, 1, 1, ops::nhwc, ops::krsc>();    // 2 groups, cuDNN's NHWC layout
  grouped_case<2, 7, 7, 5, 5, 3, 3, 5, 2, 1, ops::nchw, ops::kcrs>();    // depthwise, stride 2 (MobileNet's)
  grouped_case<1, 6, 5, 3, 6, 3, 3, 3, 1, 1, ops::nhwc, ops::rsfc>();    // depthwise, 2 filters a channel
  grouped_case<1, 5, 6, 4, 4, 1, 3, 4, ops::hw{1, 2}, ops::hw{0, 1}, ops::nchw, ops::rscf>();  // depthwise 1×3
}

TEST_CASE("ops::conv2d is grouped_conv2d in one group; groups change the program") {
  static constexpr input<"X", float, 1, 6, 6, 4> x;
  static constexpr weight<"K", float, 3, 3, 4, 4> k;
  static constexpr weight<"Kg", float, 3, 3, 4, 2> kg;
  constexpr auto plain = program_key(program(ops::conv2d<"y", ops::nhwc, 1, 1>(x, k)));
  CHECK(plain == program_key(program(ops::grouped_conv2d<"y", 1, ops::nhwc, 1, 1>(x, k))));
  CHECK(plain != program_key(program(ops::grouped_conv2d<"y", 2, ops::nhwc, 1, 1>(x, kg))));
}

}  // namespace

}  // namespace ops_conv_test
