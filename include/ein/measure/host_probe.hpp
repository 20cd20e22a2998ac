// The host's own profile: its FP32 rate and CBLAS's efficiency by size, oneDNN's for convolutions
// and its bfloat16 rate where it runs bfloat16,
// the bandwidth and compute rate of eOperators as the host emitter writes them, measured here and
// written as a device profile (profiles/*.json) for the roofline model to explore with.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "ein/cost/profile.hpp"
#include "ein/measure/host_timer.hpp"

namespace ein::measure {

namespace detail {

// Three decimals, never 0: a profile's fractions lie in (0, 1].
inline double fraction(double f) { return std::clamp(std::round(1000 * f) / 1000, 0.001, 1.0); }

inline std::string utc_now() {
  auto t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// The probe's eOperators: y = relu(x) over 2^25 floats (what a memory-bound eOperator streams)
// and a 512^3 float matrix product (what a compute-bound one reaches), as plans of one eOperator.
inline std::vector<codegen::timing_case> probe_eoperators() {
  using namespace ir;
  const std::int64_t n = std::int64_t{1} << 25, m = 512;
  auto relu = make_scope({{"i", 0, n}}, {}, make_unary(unary_fn::relu, make_access(tensor{"x", dtype::f32, {n}}, {idx("i")})));
  auto product = make_scope({{"i", 0, m}, {"j", 0, m}}, {{"k", 0, m}},
                            make_access(tensor{"a", dtype::f32, {m, m}}, {idx("i"), idx("k")}) *
                                make_access(tensor{"b", dtype::f32, {m, m}}, {idx("k"), idx("j")}));
  return {{"ein_probe_stream", host_timer::eoperator_plan(*relu)}, {"ein_probe_product", host_timer::eoperator_plan(*product)}};
}

#if defined(EIN_HAVE_ONEDNN)
// oneDNN's FLOP/s on NHWC convolutions (`transposed`: 4×4 at stride 2, padded 1; else 3×3 padded
// 1) of square channels, prepared as a plan runs them, as a curve of fractions of `peak`.
inline nlohmann::json onednn_curve(bool transposed, double peak, const timing_options& timing) {
  struct shape {
    std::int64_t n, h, c, f;
  };
  const std::vector<shape> shapes =
      transposed ? std::vector<shape>{{1, 4, 8, 8}, {1, 4, 32, 32}, {1, 4, 128, 128}, {1, 8, 128, 128},
                                      {1, 8, 256, 256}, {4, 4, 512, 256}, {1, 16, 512, 256}, {1, 32, 512, 256}}
                 : std::vector<shape>{{1, 7, 8, 8}, {1, 8, 16, 16}, {1, 14, 32, 32}, {1, 14, 64, 64},
                                      {1, 14, 128, 128}, {1, 14, 256, 256}, {1, 28, 256, 256}, {1, 28, 512, 512}};
  nlohmann::json curve = nlohmann::json::array();
  eval::random_stream rng(3);
  for (auto& s : shapes) {
    // the input is (n, c, h, h) NHWC; the output (n, f, o, o)
    const std::int64_t o = transposed ? 2 * s.h : s.h, taps = transposed ? 4 : 3;
    runtime::onednn_geometry g;
    g.forward = !transposed;
    const std::int64_t src[4] = {s.n, s.c, s.h, s.h}, dst[4] = {s.n, s.f, o, o};
    for (int d = 0; d < 4; ++d) g.src_dims[d] = src[d], g.dst_dims[d] = dst[d];
    auto nhwc = [](const std::int64_t (&dims)[4], std::int64_t (&strides)[4]) {
      strides[1] = 1, strides[3] = dims[1], strides[2] = dims[1] * dims[3], strides[0] = strides[2] * dims[2];
    };
    nhwc(g.src_dims, g.src_strides);
    nhwc(g.dst_dims, g.dst_strides);
    const std::int64_t w[4] = {s.f, s.c, taps, taps};
    for (int d = 0; d < 4; ++d) g.weights_dims[d] = w[d];
    g.weights_strides[1] = 1, g.weights_strides[3] = s.c, g.weights_strides[2] = s.c * taps,
    g.weights_strides[0] = s.c * taps * taps;
    g.pad[0] = g.pad[1] = g.pad_end[0] = g.pad_end[1] = 1;
    g.stride[0] = g.stride[1] = transposed ? 2 : 1;
    std::vector<float> x(std::size_t(s.n * s.c * s.h * s.h)), k(std::size_t(s.f * s.c * taps * taps)),
        y(std::size_t(s.n * s.f * o * o));
    for (auto* v : {&x, &k})
      for (auto& e : *v) e = static_cast<float>(rng.uniform());
    runtime::onednn_convolution conv(g);
    runtime::onednn_prepared_convolution prepared(conv, k.data());
    // every tap of every input point (transposed) or output point is a multiply-add
    const double points = double(s.n) * double(transposed ? s.h * s.h : o * o);
    const double flops = 2.0 * points * double(s.c * s.f * taps * taps);
    const double t = time_runs([&] { prepared.run(x.data(), y.data()); }, timing).seconds;
    curve.push_back({flops, fraction(flops / t / peak)});
  }
  return curve;
}

// oneDNN's fastest bfloat16 matmul of n³ (n = 256 to 1024, as a plan runs it:
// runtime::onednn_matmul), in FLOP/s: the host's 16-bit peak, which the roofline prices bfloat16
// library calls at. On AVX-512 BF16 without AMX, oneDNN 2.6 reached half the rate of float sgemm.
inline double onednn_bfloat16_peak(const timing_options& timing) {
  double peak = 0;
  for (std::int64_t n : {256, 512, 1024}) {
    const runtime::onednn_matmul product(runtime::onednn_matmul_geometry{
        .batch = 1, .m = n, .n = n, .k = n, .a_strides = {0, n, 1}, .b_strides = {0, n, 1}, .c_strides = {0, n, 1}});
    std::vector<ein::bfloat16> a(std::size_t(n * n), ein::bfloat16(0.5f)), b(a.size(), ein::bfloat16(0.25f)), c(a.size());
    peak = std::max(peak, 2.0 * double(n * n * n) /
                              time_runs([&] { product.run(a.data(), b.data(), c.data()); }, timing).seconds);
  }
  return peak;
}
#endif

}  // namespace detail

/// Measures this machine (`machine`) as a device profile for the host roofline: FP32 peak as
/// CBLAS's fastest sgemm of n³, n = 16 to 2048, and its efficiency at each size (`default`);
/// oneDNN's 3×3 and transposed 4×4 convolutions as the `conv2d` and `conv_transpose2d` curves
/// (where built with it); the bandwidth and compute rate of eOperators as the host emitter writes
/// them and `toolchain` compiles them (a relu over 128 MiB, a 512³ product). What cannot be
/// measured here (no CBLAS, no toolchain) is taken from `fallback`, and `source` says so. Progress
/// on stderr under `what`. The JSON reads back with cost::read_profile.
inline nlohmann::json probe_host_profile(const host_machine& machine, const std::optional<host_toolchain>& toolchain,
                                         const cost::device_profile& fallback, const std::string& what) {
  std::fprintf(stderr, "%s: measuring this machine's profile (%s)\n", what.c_str(), machine.device.c_str());
  timing_options timing;
  timing.runs = 7;
  double peak = fallback.fp32_flops;
  nlohmann::json library = nlohmann::json::object();
  std::string measured;
#if defined(EIN_HAVE_CBLAS)
  {
    std::vector<std::pair<double, double>> rates;
    peak = 0;
    for (int n : {16, 32, 64, 128, 256, 512, 1024, 2048}) {
      std::vector<float> a(std::size_t(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
      double t = time_runs([&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                    c.data(), n);
      }, timing).seconds;
      rates.emplace_back(2.0 * n * n * n, 2.0 * n * n * n / t);
      peak = std::max(peak, rates.back().second);
    }
    nlohmann::json curve = nlohmann::json::array();
    for (auto [flops, rate] : rates) curve.push_back({flops, detail::fraction(rate / peak)});
    library["default"] = curve;
    measured = "FP32 peak as CBLAS's fastest sgemm of n^3, n = 16 to 2048, library efficiency as sgemm at n^3 sizes";
  }
#endif
  if (!library.contains("default")) {
    nlohmann::json curve = nlohmann::json::array();
    for (auto& [flops, f] : fallback.curve(match::op_kind::matmul).points) curve.push_back({flops, f});
    library["default"] = curve;
  }
  library["elementwise"] = {{1e3, 1.0}};
#if defined(EIN_HAVE_ONEDNN)
  library["conv2d"] = detail::onednn_curve(false, peak, timing);
  library["conv_transpose2d"] = detail::onednn_curve(true, peak, timing);
  measured += std::string(measured.empty() ? "" : ", ") +
              "conv2d and conv_transpose2d as oneDNN's 3x3 and transposed 4x4 (stride 2) NHWC convolutions";
#endif
  double bandwidth = fallback.dram_bytes, loops = fallback.eoperator_compute;
  if (toolchain) {
    host_batch batch(detail::probe_eoperators(), *toolchain, codegen::accumulation::element);
    auto stream = batch.prepare(0), product = batch.prepare(1);
    bandwidth = 8.0 * double(std::int64_t{1} << 25) / time_runs([&] { stream->run(); }, timing).seconds;
    loops = 2.0 * 512 * 512 * 512 / time_runs([&] { product->run(); }, timing).seconds / peak;
    measured += std::string(measured.empty() ? "" : ", ") +
                "bandwidth as a relu eOperator over 128 MiB, eOperator compute as a 512^3 product eOperator, "
                "compiled by " + toolchain->str();
  }
  nlohmann::json p = {
      {"name", machine.device},
      {"source", "measured by ein at " + detail::utc_now() + (measured.empty() ? "" : ": " + measured) +
                     "; the rest from " + fallback.name},
      {"fp32_tflops", std::max(peak / 1e12, 1e-6)},
      {"tf32_tflops", std::max(peak / 1e12, 1e-6)},
      {"dram_gbytes_per_s", std::max(bandwidth / 1e9, 1e-6)},
      {"launch_us", 0},
      {"use_tf32", false},
      {"gemm_batch_as_calls", true},  // the host emitter loops over a batch's CBLAS calls
      {"eoperator_bandwidth_fraction", 1.0},
      {"eoperator_compute_fraction", detail::fraction(loops)},
      {"library_efficiency", library}};
#if defined(EIN_HAVE_ONEDNN)
  if (runtime::onednn_runs_bfloat16()) {
    p["half_tflops"] = std::max(detail::onednn_bfloat16_peak(timing) / 1e12, 1e-6);
    p["source"] = p["source"].get<std::string>() + "; 16-bit peak as oneDNN's fastest bfloat16 matmul of n^3, n = 256 to 1024";
  }
#endif
  return p;
}

}  // namespace ein::measure
