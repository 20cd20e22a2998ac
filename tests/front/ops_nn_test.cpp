// The network operators of ein::ops (pooling, softmax, per-channel, reshape, linear, batch
// normalization and its fold) against hand-written loops, through reify and the interpreter.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ein/ir/print.hpp"
#include "front/check.hpp"

namespace ops_nn_test {

namespace {

using namespace ein;
using namespace front_test;

// Row-major element of an (n, h, w, c) or (n, c, h, w) value by (n, h, w, c).
double at4(const eval::dense& t, bool nhwc, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
  return nhwc ? get(t, {n, h, w, c}) : get(t, {n, c, h, w});
}

template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, ops::hw K, ops::hw St, ops::hw P,
          ops::data_format L>
void pool_case() {
  static constexpr bool nhwc = L == ops::data_format::nhwc;
  static constexpr std::int64_t oh = (H + 2 * P.h - K.h) / St.h + 1, ow = (W + 2 * P.w - K.w) / St.w + 1;
  static constexpr activation<nhwc, N, H, W, C> x;
  auto out = [](std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    return nhwc ? shape{n, h, w, c} : shape{n, c, h, w};
  };
  // PyTorch's MaxPool2d: the max over the window's in-bounds elements; AvgPool2d with
  // count_include_pad: the sum over them divided by the full window K.h * K.w.
  auto pool = [out](bool max) {
    return [out, max](eval::bindings& env) {
      eval::dense y(out(N, oh, ow, C));
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t h = 0; h < oh; ++h)
          for (std::int64_t w = 0; w < ow; ++w)
            for (std::int64_t c = 0; c < C; ++c) {
              double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
              for (std::int64_t r = 0; r < K.h; ++r)
                for (std::int64_t s = 0; s < K.w; ++s) {
                  std::int64_t ih = h * St.h + r - P.h, iw = w * St.w + s - P.w;
                  if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                  double v = at4(env["X"], nhwc, n, ih, iw, c);
                  acc = max ? std::max(acc, v) : acc + v;
                }
              add_at(y, out(n, h, w, c), max ? acc : acc / static_cast<double>(K.h * K.w));
            }
      return y;
    };
  };
  check(program(ops::max_pool2d<"y", L, K, St, P>(x)), "y", pool(true));
  check(program(ops::avg_pool2d<"y", L, K, St, P>(x)), "y", pool(false));
}

TEST_CASE("ops::max_pool2d and ops::avg_pool2d equal PyTorch's loops (padding left out of a max, counted in an average)") {
  using ops::hw;
  pool_case<1, 6, 6, 2, 2, 2, 0, ops::nhwc>();                 // 2x2, stride 2: stride defaults to the window
  pool_case<2, 7, 7, 3, 3, 2, 1, ops::nhwc>();                 // ResNet-18's 3x3 stride 2 padding 1
  pool_case<1, 5, 8, 2, 3, 1, 1, ops::nchw>();                 // same-size 3x3
  pool_case<1, 6, 9, 2, hw{2, 3}, hw{2, 1}, hw{1, 1}, ops::nchw>();  // per-axis window, stride, padding
  pool_case<2, 4, 5, 1, hw{1, 3}, 1, hw{0, 1}, ops::nhwc>();
}

TEST_CASE("ops::max_pool2d over negative values at a border gives their max, not the padding's 0") {
  static constexpr input<"X", float, 1, 3, 3, 1> x;
  auto ir = reify(program(ops::max_pool2d<"y", ops::nhwc, 3, 1, 1>(x)), "t");
  eval::bindings env;
  env["X"] = eval::dense({1, 3, 3, 1});
  for (std::size_t k = 0; k < 9; ++k) env["X"].data[k] = -1.0 - static_cast<double>(k);
  auto y = eval::evaluate(ir, env).at("y");
  CHECK(y.data[0] == -1.0);  // the corner's window holds -1, -2, -4, -5 and padding
  CHECK(y.data[8] == -5.0);
}

TEST_CASE("ops::avg_pool2d divides a border window by the full window size (count_include_pad)") {
  static constexpr input<"X", float, 1, 2, 2, 1> x;
  auto ir = reify(program(ops::avg_pool2d<"y", ops::nhwc, 3, 1, 1>(x)), "t");
  eval::bindings env;
  env["X"] = eval::dense({1, 2, 2, 1});
  env["X"].data = {1.0, 2.0, 3.0, 4.0};
  auto y = eval::evaluate(ir, env).at("y");
  CHECK(y.data[0] == doctest::Approx(10.0 / 9.0));  // all four values, 5 padding zeros
}

template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, ops::data_format L>
void global_avg_pool_case() {
  static constexpr bool nhwc = L == ops::data_format::nhwc;
  static constexpr activation<nhwc, N, H, W, C> x;
  check(program(ops::global_avg_pool<"y", L>(x)), "y", [](eval::bindings& env) {
    eval::dense y(shape{N, C});
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t h = 0; h < H; ++h)
          for (std::int64_t w = 0; w < W; ++w) add_at(y, {n, c}, at4(env["X"], nhwc, n, h, w, c) / (H * W));
    return y;
  });
}

TEST_CASE("ops::global_avg_pool equals the loop in both layouts") {
  global_avg_pool_case<2, 3, 4, 5, ops::nhwc>();
  global_avg_pool_case<1, 7, 7, 3, ops::nchw>();
  global_avg_pool_case<3, 1, 2, 1, ops::nhwc>();
}

template <std::int64_t... Dims>
void softmax_case() {
  static constexpr input<"X", float, Dims...> x;
  static constexpr std::int64_t last = std::array<std::int64_t, sizeof...(Dims)>{Dims...}.back();
  static constexpr std::int64_t rows = (Dims * ...) / last;
  check(program(ops::softmax<"y">(x)), "y", [](eval::bindings& env) {
    eval::dense y(shape{Dims...});
    const auto& in = env["X"].data;
    for (std::int64_t r = 0; r < rows; ++r) {
      double total = 0;
      for (std::int64_t j = 0; j < last; ++j) total += std::exp(in[static_cast<std::size_t>(r * last + j)]);
      for (std::int64_t j = 0; j < last; ++j) {
        auto k = static_cast<std::size_t>(r * last + j);
        y.data[k] = std::exp(in[k]) / total;
      }
    }
    return y;
  });
}

TEST_CASE("ops::softmax equals exp(x) / Σ exp(x) over the last axis, any rank") {
  softmax_case<7>();
  softmax_case<3, 5>();
  softmax_case<2, 3, 4>();
  softmax_case<2, 1, 3, 1>();
}

TEST_CASE("ops::softmax stays finite where exp(x) overflows") {
  static constexpr input<"X", double, 2, 3> x;
  auto ir = reify(program(ops::softmax<"y">(x)), "t");
  eval::bindings env;
  env["X"] = eval::dense({2, 3});
  env["X"].data = {1000.0, 1000.0, 999.0, -1000.0, -1001.0, -1000.0};
  auto y = eval::evaluate(ir, env).at("y");
  double e = std::exp(-1.0);
  CHECK(y.data[0] == doctest::Approx(1.0 / (2.0 + e)));
  CHECK(y.data[4] == doctest::Approx(e / (2.0 + e)));
}

// bias_add, prelu, batch_norm: one parameter value per channel along the layout's channel axis.
template <ops::data_format L, std::int64_t... Dims>
void per_channel_case() {
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::array<std::int64_t, rank> dims{Dims...};
  static constexpr std::size_t axis = L == ops::data_format::nhwc ? rank - 1 : 1;
  static constexpr input<"X", float, Dims...> x;
  static constexpr weight<"A", float, dims[axis]> a;
  static constexpr weight<"B", float, dims[axis]> b;
  static constexpr weight<"M", float, dims[axis]> m;
  static constexpr weight<"V", float, dims[axis]> v;
  auto each = [](auto f) {
    return [f](eval::bindings& env) {
      eval::dense y(shape{Dims...});
      std::int64_t inner = 1;
      for (std::size_t d = axis + 1; d < rank; ++d) inner *= dims[d];
      for (std::size_t k = 0; k < y.data.size(); ++k) {
        auto c = static_cast<std::size_t>((static_cast<std::int64_t>(k) / inner) % dims[axis]);
        y.data[k] = f(env["X"].data[k], env, c);
      }
      return y;
    };
  };
  check(program(ops::bias_add<"y", L>(x, b)), "y",
        each([](double v, eval::bindings& env, std::size_t c) { return v + env["B"].data[c]; }));
  check(program(ops::prelu<"y", L>(x, a)), "y",
        each([](double v, eval::bindings& env, std::size_t c) { return v > 0 ? v : env["A"].data[c] * v; }));
  check(
      program(ops::batch_norm<"y", L>(x, a, b, m, v, 1e-3)), "y",
      each([](double in, eval::bindings& env, std::size_t c) {
        return (in - env["M"].data[c]) * env["A"].data[c] / std::sqrt(env["V"].data[c] + 1e-3) + env["B"].data[c];
      }),
      7, [](eval::bindings& env) { make_positive(env, "V"); });
}

TEST_CASE("ops::bias_add, ops::prelu and ops::batch_norm apply one value per channel, in both layouts") {
  per_channel_case<ops::nhwc, 2, 3, 4, 5>();
  per_channel_case<ops::nchw, 2, 3, 4, 5>();
  per_channel_case<ops::nhwc, 3, 7>();  // (n, features): the feature axis
  per_channel_case<ops::nchw, 1, 6, 2>();
}

TEST_CASE("ops::tanh and ops::sigmoid apply elementwise") {
  static constexpr input<"X", float, 2, 3, 4> x;
  auto each = [](double (*f)(double)) {
    return [f](eval::bindings& env) {
      eval::dense y(shape{2, 3, 4});
      for (std::size_t k = 0; k < y.data.size(); ++k) y.data[k] = f(env["X"].data[k]);
      return y;
    };
  };
  check(program(ops::tanh<"y">(x)), "y", each([](double v) { return std::tanh(v); }));
  check(program(ops::sigmoid<"y">(x)), "y", each([](double v) { return 1.0 / (1.0 + std::exp(-v)); }));
}

// A reshape keeps the row-major order: element k of y is element k of x.
template <std::int64_t... To, std::int64_t... From>
void reshape_case(std::integer_sequence<std::int64_t, From...>) {
  static constexpr input<"X", float, From...> x;
  check(program(ops::reshape<"y", To...>(x)), "y", [](eval::bindings& env) {
    eval::dense y(shape{To...});
    y.data = env["X"].data;
    return y;
  });
}

TEST_CASE("ops::reshape and ops::flatten keep the row-major order") {
  reshape_case<6, 4>(std::integer_sequence<std::int64_t, 2, 3, 4>{});
  reshape_case<2, 12>(std::integer_sequence<std::int64_t, 2, 3, 4>{});  // a shared leading axis
  reshape_case<4, 3, 2>(std::integer_sequence<std::int64_t, 2, 3, 4>{});
  reshape_case<2, 3, 2, 5>(std::integer_sequence<std::int64_t, 2, 3, 10>{});
  reshape_case<30>(std::integer_sequence<std::int64_t, 5, 6>{});
  static constexpr input<"X", float, 2, 3, 4, 5> x;
  check(program(ops::flatten<"y">(x)), "y", [](eval::bindings& env) {
    eval::dense y(shape{2, 60});
    y.data = env["X"].data;
    return y;
  });
}

template <std::int64_t N, std::int64_t In, std::int64_t Out>
void linear_case() {
  static constexpr input<"X", float, N, In> x;
  static constexpr weight<"W", float, Out, In> w;
  static constexpr weight<"B", float, Out> b;
  check(program(ops::linear<"y">(x, w, b)), "y", [](eval::bindings& env) {
    eval::dense y(shape{N, Out});
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t o = 0; o < Out; ++o) {
        add_at(y, {n, o}, get(env["B"], {o}));
        for (std::int64_t k = 0; k < In; ++k) add_at(y, {n, o}, get(env["X"], {n, k}) * get(env["W"], {o, k}));
      }
    return y;
  });
}

TEST_CASE("ops::linear is x · wᵀ + b with PyTorch's (out, in) weight") {
  linear_case<2, 5, 3>();
  linear_case<1, 8, 10>();
  linear_case<4, 1, 1>();
}

// The folded convolution equals batch_norm(conv2d(...)) under the interpreter, on the same
// random inputs (variances made positive), and its filter and bias read weights only.
template <std::int64_t N, std::int64_t H, std::int64_t W, std::int64_t C, std::int64_t F, std::int64_t R,
          std::int64_t S, ops::hw St, ops::hw P, ops::data_format L, ops::filter Fl>
void fold_case(std::uint64_t seed) {
  static constexpr bool nhwc = L == ops::data_format::nhwc;
  static constexpr activation<nhwc, N, H, W, C> x;
  static constexpr filter_weight<Fl, R, S, F, C> k;
  static constexpr weight<"G", float, F> g;
  static constexpr weight<"B", float, F> b;
  static constexpr weight<"M", float, F> m;
  static constexpr weight<"V", float, F> v;
  auto unfolded = reify(program(ops::batch_norm<"y", L>(ops::conv2d<"c", L, St, P, 1, Fl>(x, k), g, b, m, v, 1e-2)), "u");
  auto folded = reify(program(ops::conv2d_batch_norm<"y", L, St, P, 1, Fl>(x, k, g, b, m, v, 1e-2)), "f");
  auto env = eval::random_inputs(unfolded, seed);
  make_positive(env, "V");
  auto want = eval::evaluate(unfolded, env).at("y");
  auto got = eval::evaluate(folded, env).at("y");
  REQUIRE(got.shape == want.shape);
  CHECK(eval::max_rel_error(got, want) < 1e-12);
  for (const char* transform : {"y_weight", "y_bias"}) {
    CAPTURE(transform);
    auto* d = folded.find_definition(transform);
    REQUIRE(d);
    for (auto& t : folded.tensors)
      if (ir::to_string(*d->value).find(t.name + "[") != std::string::npos) CHECK(t.role == ir::tensor_role::weight);
  }
}

TEST_CASE("ops::conv2d_batch_norm equals batch_norm after conv2d, in both layouts and every filter layout") {
  using ops::hw;
  fold_case<1, 5, 5, 3, 4, 3, 3, 1, 1, ops::nhwc, ops::rsfc>(1);
  fold_case<2, 6, 7, 2, 3, 3, 3, 2, 1, ops::nchw, ops::kcrs>(2);
  fold_case<1, 4, 9, 2, 2, 1, 5, 1, hw{0, 2}, ops::nhwc, ops::rscf>(3);
  fold_case<2, 3, 3, 4, 5, 1, 1, 1, 0, ops::nchw, ops::rsfc>(4);
}

}  // namespace

}  // namespace ops_nn_test
