// The GPU timer on a device: library calls and eOperators are timed, the measured model caches
// them. Skipped where no CUDA device is here, failed where the CUDA setup is broken.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ein/measure/gpu_timer.hpp"
#include "ein/match/match.hpp"
#include "ein/plan/capabilities.hpp"
#include "runtime/cuda/device_cases.hpp"
#include "search/rediscover_support.hpp"

using namespace ein;
using namespace ein::ir;

TEST_CASE("gpu timer: a GEMM, a convolution and eOperators are timed on the GPU") {
  if (ein_test::skip_without_device()) return;
  measure::gpu_timer timer;
  MESSAGE("device: " << timer.device());
  CHECK(!timer.device().empty());
  auto mm = make_scope({{"i", 0, 256}, {"j", 0, 512}}, {{"k", 0, 1024}},
                       make_access(search_test::input("A", {256, 1024}), {idx("i"), idx("k")}) *
                           make_access(search_test::weight("B", {1024, 512}), {idx("k"), idx("j")}));
  auto conv = search_test::conv(14, 64, 64, 3, 1);
  cost::measurement_cache cache;
  cost::measured model(cache, &timer, search_test::h100());
  for (auto& s : {mm, conv}) {
    for (auto& i : match::match(*s)) {
      auto w = cost::workload::library(i);
      double t = model.seconds(w);
      MESSAGE(i.str() << ": " << t * 1e6 << " us");
      CHECK(t > 0);
      CHECK(t < 0.1);
    }
    auto f = match::eoperator_cost(*s);
    double t = model.seconds(cost::workload::eoperator(f.flops, f.bytes, s.get()));
    MESSAGE("eOperator " << to_string(*s) << ": " << t * 1e6 << " us");
    CHECK(t > 0);
    CHECK(t < 1.0);
  }
  MESSAGE(model.describe());
  CHECK(model.counts().timed >= 3);
}

TEST_CASE("gpu timer: half and bfloat16 GEMMs, convolutions and eOperators are timed on the GPU") {
  if (ein_test::skip_without_device()) return;
  measure::gpu_timer timer;
  cost::measurement_cache cache;
  cost::measured model(cache, &timer, search_test::h100());
  for (auto t : {dtype::f16, dtype::bf16}) {
    auto typed = [t](std::string name, std::vector<std::int64_t> shape, tensor_role role) {
      return tensor{std::move(name), t, std::move(shape), role};
    };
    auto mm = make_scope({{"i", 0, 256}, {"j", 0, 512}}, {{"k", 0, 1024}},
                         make_access(typed("A", {256, 1024}, tensor_role::input), {idx("i"), idx("k")}) *
                             make_access(typed("B", {1024, 512}, tensor_role::weight), {idx("k"), idx("j")}));
    // NHWC data and a KRSC filter, as cuDNN takes 16-bit convolutions
    auto conv = make_scope({{"n", 0, 1}, {"h", 0, 28}, {"w", 0, 28}, {"f", 0, 64}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 64}},
                           make_access(typed("X", {1, 28, 28, 64}, tensor_role::input),
                                       {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                               make_access(typed("K", {64, 3, 3, 64}, tensor_role::weight),
                                           {idx("f"), idx("r"), idx("s"), idx("c")}));
    for (auto& s : {mm, conv}) {
      bool called = false;
      for (auto& i : match::match(*s)) {
        if (i.type != t || (!plan::cublas.runs(i) && !plan::cudnn.runs(i))) continue;
        called = true;
        double seconds = model.seconds(cost::workload::library(i));
        MESSAGE(i.str() << ": " << seconds * 1e6 << " us");
        CHECK(seconds > 0);
        CHECK(seconds < 0.1);
      }
      CHECK(called);
      auto f = match::eoperator_cost(*s);
      double seconds = model.seconds(cost::workload::eoperator(f.flops, f.bytes, s.get()));
      MESSAGE("eOperator " << to_string(*s) << ": " << seconds * 1e6 << " us");
      CHECK(seconds > 0);
      CHECK(seconds < 1.0);
    }
  }
  MESSAGE(model.describe());
  CHECK(model.counts().timed >= 6);
#if defined(EIN_HAVE_CUDNN)
  CHECK(model.counts().fallback == 0);  // every kernel timed, the convolutions by cuDNN too
#endif
}

TEST_CASE("gpu timer: the device is found on the GPU") {
  if (ein_test::skip_without_device()) return;
  std::string why;
  CHECK(measure::gpu_present(&why));
  CHECK(!measure::gpu_name().empty());
}
