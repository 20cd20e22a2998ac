// The GPU timer on a device: library calls and eOperators are timed, the measured model caches
// them. Skipped where no CUDA device is here, failed where the CUDA setup is broken.
#include <doctest/doctest.h>

#include <string>

#include "ein/measure/gpu_timer.hpp"
#include "ein/match/match.hpp"
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

TEST_CASE("gpu timer: the device is found on the GPU") {
  if (ein_test::skip_without_device()) return;
  std::string why;
  CHECK(measure::gpu_present(&why));
  CHECK(!measure::gpu_name().empty());
}
