// The host's two libraries for float matrix products side by side: OpenBLAS's cblas_sgemm and
// oneDNN's dnnl_sgemm (what a plan that links oneDNN calls, docs/host.md), and the same products
// in bfloat16 on oneDNN's matmul (runtime::onednn_matmul, what a bfloat16 plan calls where oneDNN
// runs bfloat16), on the products of the models' layers, the fastest of 30 runs after one, on the
// threads OpenMP and OpenBLAS take.
//
//   bench_host_products
#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "ein/measure/timing.hpp"
#include "ein/runtime/onednn_matmul.hpp"

int main() {
  struct product {
    int m, n, k;
    const char* what;
  };
  const product products[] = {{784, 128, 256, "ResNet 1x1, 28x28"},   {3136, 64, 64, "ResNet 1x1, 56x56"},
                              {196, 256, 2304, "3x3 as im2col, 14x14"}, {49, 512, 4608, "3x3 as im2col, 7x7"},
                              {1, 1000, 512, "classifier"},           {4096, 56, 81, "FSRCNN's 9x9 taps"}};
  ein::measure::timing_options o;
  o.runs = o.slow_runs = 30;
  o.very_slow_seconds = 10;
  std::printf("%-24s %6s %6s %6s %12s %12s %14s\n", "product", "m", "n", "k", "OpenBLAS ms", "oneDNN ms",
              "oneDNN bf16 ms");
  for (auto& p : products) {
    std::vector<float> a(std::size_t(p.m) * p.k, 0.5f), b(std::size_t(p.k) * p.n, 0.25f), c(std::size_t(p.m) * p.n);
    auto openblas = ein::measure::time_runs([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.m, p.n, p.k, 1.0f, a.data(), p.k, b.data(), p.n, 0.0f,
                  c.data(), p.n);
    }, o);
    auto onednn = ein::measure::time_runs([&] {
      dnnl_sgemm('N', 'N', p.m, p.n, p.k, 1.0f, a.data(), p.k, b.data(), p.n, 0.0f, c.data(), p.n);
    }, o);
    const std::int64_t m = p.m, n = p.n, k = p.k;
    const ein::runtime::onednn_matmul product(ein::runtime::onednn_matmul_geometry{
        .batch = 1, .m = m, .n = n, .k = k, .a_strides = {0, k, 1}, .b_strides = {0, n, 1}, .c_strides = {0, n, 1}});
    std::vector<ein::bfloat16> a16(a.size(), ein::bfloat16(0.5f)), b16(b.size(), ein::bfloat16(0.25f)), c16(c.size());
    auto bfloat16 = ein::measure::time_runs([&] { product.run(a16.data(), b16.data(), c16.data()); }, o);
    std::printf("%-24s %6d %6d %6d %12.3f %12.3f %14.3f\n", p.what, p.m, p.n, p.k, openblas.seconds * 1e3,
                onednn.seconds * 1e3, bfloat16.seconds * 1e3);
  }
}
