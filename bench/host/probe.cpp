// The host probe: measures this machine's FP32 rate (OpenBLAS's fastest sgemm), its memory
// bandwidth, CBLAS's efficiency by size, oneDNN's for convolutions and transposed convolutions
// (where built with it) and how close loops written as ein's host eOperators get, and prints them
// as a device profile (cost/profiles/*.json) for `ein_generate BACKEND host`.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#if defined(EIN_PROBE_HAVE_ONEDNN)
#include "host/onednn_peer.hpp"
#endif

namespace {

// The median seconds of `runs` calls of `f`, after one call that warms caches and threads.
template <class F>
double seconds(F f, int runs) {
  f();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return ein::bench::median(t);
}

// FLOP/s of a square n×n×n sgemm.
double sgemm_rate(int n) {
  std::vector<float> a(std::size_t(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
  double s = seconds([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  }, n >= 1024 ? 5 : 21);
  return 2.0 * n * n * n / s;
}

// Bytes/s of y = relu(x) over 2^25 floats on every core: what an elementwise eOperator streams.
double stream_rate() {
  const std::int64_t n = std::int64_t{1} << 25;
  std::vector<float> x(n, 1.5f), y(n);
  double s = seconds([&] {
    float* out = y.data();
    const float* in = x.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0.0f;
  }, 11);
  return 8.0 * n / s;
}

// FLOP/s of a 512³ matrix product written as the host emitter writes a matmul eOperator: rows
// shared among threads, 8 outputs of a row at once, each summed in its own float accumulator.
double eoperator_rate() {
  constexpr std::int64_t n = 512, lanes = 8;
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  double s = seconds([&] {
    const float* A = a.data();
    const float* B = b.data();
    float* C = c.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j0 = 0; j0 < n; j0 += lanes) {
        float acc[lanes] = {};
        for (std::int64_t k = 0; k < n; ++k)
          for (int l = 0; l < lanes; ++l) acc[l] += A[n * i + k] * B[n * k + j0 + l];
        for (int l = 0; l < lanes; ++l) C[n * i + j0 + l] = acc[l];
      }
  }, 11);
  return 2.0 * n * n * n / s;
}

// Three decimals, never 0: a profile's fractions lie in (0, 1].
double fraction(double f) { return std::max(0.001, std::round(1000 * f) / 1000); }

#if defined(EIN_PROBE_HAVE_ONEDNN)
// oneDNN's FLOP/s on each shape, NHWC, weights reordered once (as a prepared plan runs it), as
// a library curve: [FLOPs, fraction of `peak`] in ascending FLOPs.
nlohmann::json onednn_curve(const std::vector<host_bench::conv_shape>& shapes, double peak) {
  nlohmann::json curve = nlohmann::json::array();
  for (auto& shape : shapes) {
    // Every tap of every input point (transposed) or output point (forward) is a multiply-add.
    const double points = double(shape.n) * double(shape.transposed ? shape.h * shape.w : shape.oh() * shape.ow());
    const double flops = 2.0 * points * double(shape.c * shape.f * shape.r * shape.s);
    std::vector<float> k(std::size_t(shape.r * shape.s * shape.f * shape.c), 0.25f),
        x(std::size_t(shape.n * shape.h * shape.w * shape.c), 0.5f),
        y(std::size_t(shape.n * shape.oh() * shape.ow() * shape.f));
    host_bench::onednn_conv conv(shape, k);
    const double s = seconds([&] { conv.run(x, y); }, flops > 1e9 ? 5 : 21);
    curve.push_back({flops, fraction(std::min(1.0, flops / s / peak))});
  }
  return curve;
}
#endif

}  // namespace

int main() {
  std::vector<std::pair<double, double>> rates;
  double peak = 0;
  for (int n : {16, 32, 64, 128, 256, 512, 1024, 2048}) {
    rates.emplace_back(2.0 * n * n * n, sgemm_rate(n));
    peak = std::max(peak, rates.back().second);
  }
  const double bandwidth = stream_rate();
  nlohmann::json curve = nlohmann::json::array();
  for (auto [flops, rate] : rates) curve.push_back({flops, fraction(rate / peak)});
  nlohmann::json library = {{"default", curve}, {"elementwise", {{1e3, 1.0}}}};
#if defined(EIN_PROBE_HAVE_ONEDNN)
  // 3×3 convolutions padded 1 and transposed 4×4 ones at stride 2, square channels, 10^4.5 to
  // 10^9.5 FLOPs: the shapes of the host benchmark and the models, smaller and larger.
  using host_bench::conv_shape;
  std::vector<conv_shape> convolutions, transposed;
  for (auto [h, c] : {std::pair{7, 8}, {8, 16}, {14, 32}, {14, 64}, {14, 128}, {14, 256}, {28, 256}, {28, 512}})
    convolutions.push_back({1, h, h, c, c, 3, 3, 1, 1, false});
  for (auto [n, h, c, f] : {std::array{1, 4, 8, 8}, {1, 4, 32, 32}, {1, 4, 128, 128}, {1, 8, 128, 128},
                            {1, 8, 256, 256}, {4, 4, 512, 256}, {1, 16, 512, 256}, {1, 32, 512, 256}})
    transposed.push_back({n, h, h, c, f, 4, 4, 2, 1, true});
  library["conv2d"] = onednn_curve(convolutions, peak);
  library["conv_transpose2d"] = onednn_curve(transposed, peak);
#endif
  const double loops = eoperator_rate() / peak;
  nlohmann::json p = {
      {"name", "host: " + ein::bench::cpu_model() + ", " + std::to_string(omp_get_max_threads()) + " threads"},
      {"source", "measured by ein_host_probe (bench/host/probe.cpp) at " + ein::bench::utc_now() +
                     ", load " + ein::bench::load_average() +
                     ": FP32 peak as OpenBLAS's fastest sgemm of n^3, n = 16 to 2048, bandwidth as a parallel relu over 128 MiB, "
                     "library efficiency as sgemm at n^3 sizes"
#if defined(EIN_PROBE_HAVE_ONEDNN)
                     " and, for conv2d and conv_transpose2d, as oneDNN's 3x3 and transposed 4x4 (stride 2) NHWC "
                     "convolutions"
#endif
                     ", eOperator compute as a 512^3 product written as the host emitter writes it; no launch cost"},
      {"fp32_tflops", std::round(peak / 1e9) / 1e3},
      {"tf32_tflops", std::round(peak / 1e9) / 1e3},
      {"dram_gbytes_per_s", std::round(bandwidth / 1e8) / 10},
      {"launch_us", 0},
      {"use_tf32", false},
      {"gemm_batch_as_calls", true},  // ein's host emitter loops over a batch's CBLAS calls
      {"eoperator_bandwidth_fraction", 1.0},
      {"eoperator_compute_fraction", fraction(loops)},
      {"library_efficiency", library}};
  std::cout << p.dump(2) << "\n";
}
