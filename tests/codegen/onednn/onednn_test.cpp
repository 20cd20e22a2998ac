// Host plans that call oneDNN (the family of conv_family.hpp): every float and bfloat16
// convolution and every bfloat16 product of the family is one oneDNN call and the double
// convolution an eOperator; each equals the interpreter through
// ein::run, through ein::prepare (weights reordered once) and from several threads at once; a
// build without oneDNN emits none; a 1-channel image reaches one of oneDNN's fast
// implementations whatever stride its channel dimension has.
#define EIN_STRICT  // every program here must have its generated plan
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/onednn/conv_family.hpp"  // before the harnesses: it declares ein::reify of the family
#include "codegen/e2e/concurrent_harness.hpp"
#include "codegen/e2e/harness.hpp"
#include "codegen/e2e/prepared_harness.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/library/onednn.hpp"
#include "ein_generated/onednn_all.hpp"
#include "ein/runtime/onednn.hpp"
#include "match/check.hpp"

namespace {

template <int K>
using plan_of = ein::runtime::generated_plan<ein_test::onednn_case<K>>;

template <int K>
void check_case() {
  constexpr ein_test::onednn_case<K> object;
  const auto p = ein::reify(object);
  CAPTURE(K);
  CAPTURE(plan_of<K>::description);
  const std::string_view description = plan_of<K>::description;
  const bool product = K >= ein_test::onednn_products;
  const bool calls = description.find(product ? "= library " : "= library conv") != std::string_view::npos;
  CHECK(calls == (p.definitions[0].type != ein::ir::dtype::f64));
  if (product) CHECK(description.find("matmul") != std::string_view::npos);
  // an epilogue runs in the call: one step, which writes y
  const auto e = ein_test::onednn_epilogue_of(K);
  if (e.bias || e.residual || e.relu) {
    CHECK(description.find("y = library conv") != std::string_view::npos);
    CHECK(description.find(" epilogue(") != std::string_view::npos);
    CHECK((description.find("relu)") != std::string_view::npos) == e.relu);
    CHECK(description.find("out = ") == std::string_view::npos);
  }
  ein_test::check_against_interpreter(object, 40 + K, plan_of<K>::tolerance);
  if (ein_test::onednn_weight_filter(K) || product)
    ein_test::check_prepared_against_interpreter(object, 60 + K, plan_of<K>::tolerance);
}

template <int... K>
void check_all(std::integer_sequence<int, K...>) {
  (check_case<K>(), ...);
}

}  // namespace

TEST_CASE("oneDNN plans: every case of the family equals the interpreter, run and prepared") {
  check_all(std::make_integer_sequence<int, ein_test::onednn_count>{});
}

TEST_CASE("oneDNN plans: runs from several threads at once, as written and prepared") {
  // Case 0 reads a weight filter (a prepared state), case 1 an input one (reordered per run).
  constexpr ein_test::onednn_case<0> with_weight;
  constexpr ein_test::onednn_case<1> with_input;
  for (auto* description : {plan_of<0>::description.data(), plan_of<1>::description.data()})
    REQUIRE(std::string_view(description).find("= library conv") != std::string_view::npos);
  using ein::runtime::bindings;
  ein_test::check_concurrent_runs(
      ein::reify(with_weight), [&](const bindings& b) { ein::run(with_weight, b); }, plan_of<0>::tolerance);
  ein_test::check_concurrent_runs(
      ein::reify(with_input), [&](const bindings& b) { ein::run(with_input, b); }, plan_of<1>::tolerance);
  const auto env = ein::eval::random_inputs(ein::reify(with_weight), 21);
  ein_test::host_buffers weights;
  const std::string filter = "K";  // the binding keeps a view of the name
  weights.bind_input(filter, ein::ir::dtype::f32, env.at(filter));
  const auto prepared = ein::prepare(with_weight, bindings(weights.items));
  ein_test::check_concurrent_runs(
      ein::reify(with_weight), [&](const bindings& b) { prepared.run(b); }, plan_of<0>::tolerance, false);
}

TEST_CASE("oneDNN plans: a build without oneDNN emits no oneDNN call; one with it calls it") {
  // Case 9 is compute-bound (EinNet §5's 4 FLOPs per byte) into 8 channels: a build's capabilities
  // call a library.
  const auto p = ein::reify(ein_test::onednn_case<9>{});
  ein::codegen::options o;
  o.name = "conv";
  o.model_header = "codegen/onednn/conv_family.hpp";
  o.object = "ein_test::onednn_case<9>{}";
  auto header = [&](bool onednn) {
    auto caps = ein::codegen::capabilities_of(ein::codegen::backend::host, true, false, onednn);
    return ein::codegen::emit_header(ein::plan::make_plan(p, caps), o);
  };
  const std::string without = header(false), with = header(true);
  CHECK(without.find("ein::runtime::onednn") == std::string::npos);
  CHECK(without.find("onednn.hpp\"") == std::string::npos);
  CHECK(with.find("#include \"ein/runtime/onednn.hpp\"") != std::string::npos);
  CHECK(with.find("static const ein::runtime::onednn_convolution state(") != std::string::npos);
  CHECK(with.find("new ein::runtime::onednn_prepared_convolution(") == std::string::npos);  // K is an input
}

TEST_CASE("oneDNN plans: a bfloat16 product calls oneDNN's matmul where the CPU runs bfloat16, else no library") {
  namespace ir = ein::ir;
  const ir::tensor A{"A", ir::dtype::bf16, {64, 48}, ir::tensor_role::input},
      B{"B", ir::dtype::bf16, {48, 80}, ir::tensor_role::weight};
  const ir::program p{"product", {A, B},
                      {{"C", ir::make_scope({{"i", 0, 64}, {"j", 0, 80}}, {{"l", 0, 48}},
                                            ir::make_access(A, {ir::idx("i"), ir::idx("l")}) *
                                                ir::make_access(B, {ir::idx("l"), ir::idx("j")})),
                        ir::dtype::bf16}},
                      {"C"}};
  ein::codegen::options o;
  o.name = "product";
  auto header = [&](bool bfloat16) {
    auto caps = ein::codegen::capabilities_of(ein::codegen::backend::host, true, false, true, bfloat16);
    return ein::codegen::emit_header(ein::plan::make_plan(p, caps), o);
  };
  const std::string with = header(true), without = header(false);
  CHECK(with.find("#include \"ein/runtime/onednn_matmul.hpp\"") != std::string::npos);
  CHECK(with.find("static const ein::runtime::onednn_matmul state(ein::runtime::onednn_matmul_geometry{.batch = 1, "
                  ".m = 64, .n = 80, .k = 48, .a_strides = {0, 48, 1}, .b_strides = {0, 80, 1}, "
                  ".c_strides = {0, 80, 1}") != std::string::npos);
  CHECK(without.find("onednn_matmul") == std::string::npos);
  CHECK(without.find("cblas_") == std::string::npos);  // CBLAS has no bfloat16 product
}

TEST_CASE("oneDNN plans: a dimension of extent 1 takes the layout of the other activation") {
  // FSRCNN's first layer: a 5×5 of a 1-channel NHWC image into 56 channels. The matcher may give
  // the channel the stride of NCHW (h·w), which alone would make oneDNN choose its reference loops.
  // That case comes first: oneDNN caches primitives under descriptors equal but for the strides of
  // extent-1 dimensions, so the second case gets the first one's implementation.
  for (std::int64_t channel_stride : {std::int64_t{32 * 32}, std::int64_t{1}}) {
    CAPTURE(channel_stride);
    ein::runtime::onednn_geometry g;
    const std::int64_t src_dims[4] = {1, 1, 32, 32}, src_strides[4] = {32 * 32, channel_stride, 32, 1},
                       weights_dims[4] = {56, 1, 5, 5}, weights_strides[4] = {1, 5 * 5 * 56, 5 * 56, 56},
                       dst_dims[4] = {1, 56, 32, 32}, dst_strides[4] = {32 * 32 * 56, 1, 32 * 56, 56};
    for (int d = 0; d < 4; ++d) {
      g.src_dims[d] = src_dims[d], g.src_strides[d] = src_strides[d];
      g.weights_dims[d] = weights_dims[d], g.weights_strides[d] = weights_strides[d];
      g.dst_dims[d] = dst_dims[d], g.dst_strides[d] = dst_strides[d];
    }
    g.pad[0] = g.pad[1] = g.pad_end[0] = g.pad_end[1] = 2;
    ein::runtime::onednn_convolution conv(g);
    CHECK(conv.implementation().rfind("ref", 0) != 0);
    std::vector<float> x(32 * 32), k(56 * 5 * 5), y(32 * 32 * 56);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7 % 13)) / 13.0f - 0.4f;
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>((i * 5 % 11)) / 11.0f - 0.6f;
    conv.run(x.data(), k.data(), y.data());
    for (std::int64_t h : {0, 13, 31})
      for (std::int64_t w : {0, 2, 30})
        for (std::int64_t f : {0, 55}) {
          double want = 0;
          for (std::int64_t r = 0; r < 5; ++r)
            for (std::int64_t s = 0; s < 5; ++s)
              if (h + r - 2 >= 0 && h + r - 2 < 32 && w + s - 2 >= 0 && w + s - 2 < 32)
                want += double(x[(h + r - 2) * 32 + w + s - 2]) * k[(r * 5 + s) * 56 + f];
          CHECK(y[(h * 32 + w) * 56 + f] == doctest::Approx(want).epsilon(1e-5));
        }
  }
}

TEST_CASE("oneDNN plans: a bfloat16 convolution runs on oneDNN's kernels where the CPU has them, else in float") {
  // A 3×3 of 32 channels into 16 at 12×12, NHWC, padded 1, with an input filter and with a
  // prepared one. Run with ONEDNN_MAX_CPU_ISA=AVX2 too (ctest codegen_onednn_avx2), where oneDNN
  // has no bfloat16 kernel and the call converts.
  ein::runtime::onednn_geometry g{.forward = true,
                                  .src_dims = {1, 32, 12, 12},
                                  .src_strides = {4608, 1, 384, 32},
                                  .weights_dims = {16, 32, 3, 3},
                                  .weights_strides = {288, 1, 96, 32},
                                  .dst_dims = {1, 16, 12, 12},
                                  .dst_strides = {2304, 1, 192, 16},
                                  .pad = {1, 1},
                                  .pad_end = {1, 1},
                                  .type = ein::runtime::element_type::bf16};
  const ein::runtime::onednn_convolution conv(g);
  CHECK(conv.converts() == !ein::runtime::onednn_runs_bfloat16());
  CHECK(conv.implementation().rfind("ref", 0) != 0);
  std::vector<ein::bfloat16> x(4608), k(4608), y(2304), prepared_y(2304);
  ein::eval::random_stream rng(3);
  for (auto* v : {&x, &k})
    for (auto& value : *v) value = ein::bfloat16(static_cast<float>(rng.uniform()));
  conv.run(x.data(), k.data(), y.data());
  ein::runtime::onednn_prepared_convolution(conv, k.data()).run(x.data(), prepared_y.data());
  // each sum in float, rounded once to bfloat16 (8 significant bits): within 2^-8 of the exact value,
  // and a little more for the float sum of 288 terms
  double worst = 0;
  for (std::int64_t h = 0; h < 12; ++h)
    for (std::int64_t w = 0; w < 12; ++w)
      for (std::int64_t f = 0; f < 16; ++f) {
        double want = 0;
        for (std::int64_t r = 0; r < 3; ++r)
          for (std::int64_t s = 0; s < 3; ++s)
            for (std::int64_t c = 0; c < 32; ++c)
              if (h + r - 1 >= 0 && h + r - 1 < 12 && w + s - 1 >= 0 && w + s - 1 < 12)
                want += double(float(x[((h + r - 1) * 12 + w + s - 1) * 32 + c])) *
                        float(k[f * 288 + (r * 3 + s) * 32 + c]);
        const auto at = static_cast<std::size_t>((h * 12 + w) * 16 + f);
        worst = std::max(worst, std::abs(double(float(y[at])) - want) / std::max(std::abs(want), 1.0));
        CHECK(float(prepared_y[at]) == float(y[at]));
      }
  CHECK(worst <= 0x1p-8 + 1e-5);
}

TEST_CASE("oneDNN plans: a convolution's bias, residual and ReLU run in oneDNN's call, or after it where oneDNN refuses") {
  // ResNet's 3×3 layer of 64 channels at 56×56, NHWC, as codegen::library::onednn_geometry_of
  // writes it
  ein::runtime::onednn_geometry g{.forward = true,
                                  .src_dims = {1, 64, 56, 56},
                                  .src_strides = {200704, 1, 3584, 64},
                                  .weights_dims = {64, 64, 3, 3},
                                  .weights_strides = {576, 1, 192, 64},
                                  .dst_dims = {1, 64, 56, 56},
                                  .dst_strides = {200704, 1, 3584, 64},
                                  .pad = {1, 1},
                                  .pad_end = {1, 1}};
  for (auto e : {ein::runtime::onednn_epilogue{true, false, true}, ein::runtime::onednn_epilogue{true, true, true},
                 ein::runtime::onednn_epilogue{false, false, true}}) {
    CAPTURE(e.bias);
    CAPTURE(e.residual);
    const ein::runtime::onednn_convolution conv(g, e);
    CHECK(conv.epilogue_in_call());
    // the same values as the call without the epilogue, then the epilogue by hand
    std::vector<float> x(200704), k(36864), b(64), r(200704), y(200704), plain(200704);
    ein::eval::random_stream rng(9);
    for (auto* v : {&x, &k, &b, &r})
      for (auto& value : *v) value = static_cast<float>(rng.uniform());
    conv.run(x.data(), k.data(), y.data(), e.bias ? b.data() : nullptr, e.residual ? r.data() : nullptr);
    ein::runtime::onednn_convolution(g).run(x.data(), k.data(), plain.data());
    double err = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      float v = plain[i] + (e.bias ? b[i % 64] : 0.0f) + (e.residual ? r[i] : 0.0f);
      err = std::max(err, static_cast<double>(std::abs((e.relu && v < 0 ? 0.0f : v) - y[i])));
    }
    CHECK(err < 1e-4);
  }
}

TEST_CASE("oneDNN plans: an input the matcher trimmed is widened only to a padding after oneDNN takes") {
  // A 3×3 dilated 2 into 3 rows and one column of a 9×9 image reads rows 0 to 6 and columns 0, 2
  // and 4: the matcher's view of x is 7×5, and widening it to the image would pad −2 and −4 after,
  // which oneDNN refuses at stride 1 (it takes more than −stride only). Without groups, in 3
  // groups of 2 channels, and depthwise.
  namespace ir = ein::ir;
  using ir::idx;
  for (std::int64_t groups : {1, 3, 6}) {
    CAPTURE(groups);
    const std::int64_t channels = 6, cg = channels / groups;
    const ir::tensor X{"X", ir::dtype::f32, {1, channels, 9, 9}, ir::tensor_role::input};
    const ir::tensor K{"K", ir::dtype::f32, {channels, cg, 3, 3}, ir::tensor_role::weight};
    const ir::affine channel = groups == 1 ? idx("c") : cg == 1 ? idx("f") : idx("f").floordiv(cg) * cg + idx("c");
    std::vector<ir::iterator> summed{{"r", 0, 3}, {"s", 0, 3}};
    if (cg > 1) summed.push_back({"c", 0, cg});
    auto scope = ir::make_scope(
        {{"n", 0, 1}, {"f", 0, channels}, {"p", 0, 3}, {"q", 0, 1}}, summed,
        ir::make_access(X, {idx("n"), channel, idx("p") + idx("r") * 2, idx("q") + idx("s") * 2}) *
            ir::make_access(K, {idx("f"), cg > 1 ? idx("c") : ir::affine(0), idx("r"), idx("s")}));
    // the instance that reads the image as x (another reads it as the filter)
    std::optional<ein::match::instance> found;
    for (auto& i : ein::match::test::of_kind(*scope, ein::match::op_kind::conv2d))
      if (i.inputs[0].source_name() == "X") found = i;
    REQUIRE(found);
    const auto& op = *found;
    REQUIRE(op.conv().groups == groups);
    REQUIRE(ein::plan::onednn_accepts(op));
    const auto g = ein::codegen::library::onednn_geometry_of(op);
    for (int d = 0; d < 2; ++d) CHECK(g.pad_end[d] > -g.stride[d]);
    const ein::runtime::onednn_convolution conv(g);
    std::vector<float> x(channels * 81), k(channels * cg * 9), y(channels * 3);
    ein::eval::random_stream rng(5);
    for (auto* v : {&x, &k})
      for (auto& value : *v) value = static_cast<float>(rng.uniform());
    conv.run(x.data(), k.data(), y.data());
    for (std::int64_t f = 0; f < channels; ++f)
      for (std::int64_t p = 0; p < 3; ++p) {
        double want = 0;
        for (std::int64_t c = 0; c < cg; ++c)
          for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t s = 0; s < 3; ++s)
              want += double(x[((f / (channels / groups)) * cg + c) * 81 + (p + 2 * r) * 9 + 2 * s]) *
                      k[((f * cg + c) * 3 + r) * 3 + s];
        CHECK(y[f * 3 + p] == doctest::Approx(want).epsilon(1e-5));
      }
  }
}
