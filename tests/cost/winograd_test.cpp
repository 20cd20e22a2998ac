// The Winograd term of the roofline model: 3×3 unit-stride undilated convolutions do fewer FLOPs.
#include <doctest/doctest.h>

#include <optional>

#include "ein/cost/roofline.hpp"
#include "ein/ir/expr.hpp"
#include "ein/match/match.hpp"

namespace winograd_test {

using namespace ein;
using namespace ein::cost;
using namespace ein::ir;

namespace {

tensor f32(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::input};
}

device_profile shipped(const char* file) { return load_profile(std::string(EIN_PROFILE_DIR) + "/" + file); }

// NHWC conv of an [n, hw, hw, c] input with f filters of k×k, stride, dilation and padding:
// L_{n,h,w,f} Σ_{r,s,c} A[n, h·stride + r·dilation − pad, ...] · K[r, s, f, c]
scope_ptr conv(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k, std::int64_t stride,
               std::int64_t dilation, std::int64_t pad) {
  std::int64_t out = (hw + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
  auto at = [&](const char* o, const char* r) { return idx(o) * stride + idx(r) * dilation - pad; };
  return make_scope({{"n", 0, 2}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                    {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(f32("A", {2, hw, hw, c}), {idx("n"), at("h", "r"), at("w", "s"), idx("c")}) *
                        make_access(f32("K", {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

// The workload of the conv2d the matcher finds for `s`, if any.
std::optional<workload> conv2d_workload(const scope_ptr& s) {
  for (auto& i : match::match(*s))
    if (i.kind == match::op_kind::conv2d) return workload::library(i);
  return std::nullopt;
}

}  // namespace

TEST_CASE("Winograd: only 3×3, unit-stride, undilated convolutions qualify, over a family of shapes") {
  struct shape {
    std::int64_t k, stride, dilation;
    bool winograd;
  };
  for (auto [k, stride, dilation, winograd] :
       {shape{3, 1, 1, true}, shape{5, 1, 1, false}, shape{1, 1, 1, false}, shape{3, 2, 1, false},
        shape{3, 1, 2, false}, shape{2, 1, 1, false}}) {
    for (std::int64_t c : {3, 8}) {
      auto w = conv2d_workload(conv(12, c, 4, k, stride, dilation, k / 2));
      INFO("k=" << k << " stride=" << stride << " dilation=" << dilation << " c=" << c);
      REQUIRE(w);
      CHECK(w->winograd_3x3 == winograd);
    }
  }
}

TEST_CASE("Winograd: the shipped profiles price a 3×3 convolution's compute at the F(2×2,3×3) fraction") {
  for (auto* file : {"h100_sxm5.json", "a100_sxm4_40gb.json"}) {
    auto p = shipped(file);
    CHECK(p.winograd_3x3_flop_fraction == doctest::Approx(16.0 / 36).epsilon(1e-3));
    CHECK(p.source.find("Winograd") != std::string::npos);
    // A compute-bound 3×3 convolution: large enough to fill the GPU
    auto w = conv2d_workload(conv(58, 256, 256, 3, 1, 1, 1));
    REQUIRE(w);
    REQUIRE(w->winograd_3x3);
    auto without = p;
    without.winograd_3x3_flop_fraction = 1;
    double fast = roofline(p).seconds(*w), slow = roofline(without).seconds(*w);
    CHECK(fast < slow);
    CHECK(fast - p.launch_seconds ==
          doctest::Approx((slow - p.launch_seconds) * p.winograd_3x3_flop_fraction).epsilon(1e-9).scale(0));
    // on TF32 tensor cores the library runs implicit GEMM: no Winograd
    auto tf32 = p, tf32_without = without;
    tf32.use_tf32 = tf32_without.use_tf32 = true;
    CHECK(roofline(tf32).seconds(*w) == roofline(tf32_without).seconds(*w));
    // a 5×5 convolution is priced as before
    auto w5 = conv2d_workload(conv(58, 256, 256, 5, 1, 1, 2));
    REQUIRE(w5);
    CHECK(roofline(p).seconds(*w5) == roofline(without).seconds(*w5));
  }
}

TEST_CASE("Winograd: a profile without the field has none, and a fraction outside (0, 1] is an error") {
  auto j = nlohmann::json::parse(R"({"name": "test", "source": "test", "fp32_tflops": 10, "tf32_tflops": 80,
    "dram_gbytes_per_s": 1000, "launch_us": 2, "eoperator_bandwidth_fraction": 0.5,
    "eoperator_compute_fraction": 0.5, "library_efficiency": {"default": [[1e6, 0.5]]}})");
  CHECK(j.get<device_profile>().winograd_3x3_flop_fraction == 1);
  for (double bad : {0.0, -0.5, 1.5}) {
    j["winograd_3x3_flop_fraction"] = bad;
    CHECK_THROWS_WITH_AS(j.get<device_profile>(), doctest::Contains("winograd_3x3_flop_fraction"), user_error);
  }
}

}  // namespace winograd_test
