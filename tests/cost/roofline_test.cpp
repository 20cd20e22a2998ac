// The roofline model: shipped profiles load, times follow the roofline, eOperators are priced.
#include <doctest/doctest.h>

#include "ein/cost/roofline.hpp"

namespace roofline_test {

using namespace ein;
using namespace ein::cost;

namespace {
device_profile shipped(const char* file) { return load_profile(std::string(EIN_PROFILE_DIR) + "/" + file); }
}  // namespace

TEST_CASE("roofline: the shipped profiles load and name their source") {
  for (auto* f : {"h100_sxm5.json", "a100_sxm4_40gb.json"}) {
    auto p = shipped(f);
    CHECK(p.fp32_flops > 1e13);
    CHECK(p.dram_bytes > 1e12);
    CHECK(p.source.find("datasheet") != std::string::npos);
    CHECK(roofline(p).describe().find(p.name) != std::string::npos);
  }
}

TEST_CASE("roofline: the shipped host profile loads, says how it was measured, and prices loops below CBLAS") {
  auto p = shipped("host.json");
  CHECK(p.source.find("measured by ein_host_probe") != std::string::npos);
  CHECK(p.fp32_flops > 1e9);
  CHECK(p.dram_bytes > 1e9);
  CHECK(p.launch_seconds == 0);
  // a 512^3 product: generated loops are measured slower than OpenBLAS's sgemm
  roofline m(p);
  double flops = 2.0 * 512 * 512 * 512, bytes = 3.0 * 4 * 512 * 512;
  CHECK(m.seconds(workload::eoperator(flops, bytes)) >
        m.seconds(workload{workload::engine::library, match::op_kind::matmul, flops, bytes}));
}

TEST_CASE("roofline: compute-bound and memory-bound work follow the two roofs") {
  auto p = shipped("h100_sxm5.json");
  roofline m(p);
  // a large GEMM is compute bound: doubling FLOPs at equal bytes roughly doubles the time
  auto big = workload{workload::engine::library, match::op_kind::matmul, 1e12, 1e8};
  auto bigger = big;
  bigger.flops *= 2;
  CHECK(m.seconds(bigger) > 1.9 * m.seconds(big) - 2 * p.launch_seconds);
  // a copy is memory bound: time = launch + bytes / (bandwidth · fraction)
  auto copy = workload::eoperator(0, 1e9);
  CHECK(m.seconds(copy) == doctest::Approx(p.launch_seconds + 1e9 / (p.dram_bytes * p.eoperator_bandwidth)).scale(0));
  // eOperators are never free, even tiny ones
  CHECK(m.seconds(workload::eoperator(1, 1)) >= p.launch_seconds);
}

TEST_CASE("roofline: 16-bit library calls run at the tensor cores' 16-bit peak where the profile gives it") {
  auto p = shipped("h100_sxm5.json");
  REQUIRE(p.half_flops > p.tf32_flops);
  roofline m(p);
  // a large compute-bound GEMM: its compute term scales with the peak it runs at
  auto f32 = workload{workload::engine::library, match::op_kind::matmul, 1e12, 1e8};
  auto bf16 = f32;
  bf16.sixteen_bit = true;
  const double f32_compute = m.seconds(f32) - p.launch_seconds, half_compute = m.seconds(bf16) - p.launch_seconds;
  CHECK(half_compute == doctest::Approx(f32_compute * p.fp32_flops / p.half_flops));
  // an eOperator of 16-bit values computes in float on CUDA cores: no tensor-core rate
  auto e = workload::eoperator(1e12, 1e8);
  auto e16 = e;
  e16.sixteen_bit = true;
  CHECK(m.seconds(e16) == m.seconds(e));
  // a profile without the 16-bit peak (the host's) prices 16-bit calls at its FP32 rate
  roofline host(shipped("host.json"));
  REQUIRE(host.profile().half_flops == 0);
  CHECK(host.seconds(bf16) == host.seconds(f32));
  for (auto* f : {"a100_sxm4_40gb.json", "h100_sxm5_slow_loops.json"}) CHECK(shipped(f).half_flops > 0);
}

TEST_CASE("roofline: the A100 is slower than the H100 on the same work") {
  roofline h(shipped("h100_sxm5.json")), a(shipped("a100_sxm4_40gb.json"));
  auto w = workload{workload::engine::library, match::op_kind::conv2d, 2.4e8, 6e6};
  CHECK(a.seconds(w) > h.seconds(w));
}

TEST_CASE("efficiency curves interpolate in log space and clamp at the ends") {
  efficiency_curve c{{{1e6, 0.1}, {1e8, 0.5}}};
  CHECK(c.at(1e3) == doctest::Approx(0.1));
  CHECK(c.at(1e7) == doctest::Approx(0.3));
  CHECK(c.at(1e12) == doctest::Approx(0.5));
}

TEST_CASE("a malformed profile is a user error naming the field") {
  nlohmann::json j = {{"name", "x"}};
  CHECK_THROWS_WITH_AS(j.get<device_profile>(), doctest::Contains("source"), user_error);
}

}  // namespace roofline_test
