// FSRCNN's transposed convolution, searched under the measured host model, runs no slower than the
// same layer generated as written, both prepared and run in turns; both equal the interpreter.
#include <doctest/doctest.h>

#include <cstdio>

#include "codegen/e2e/harness.hpp"
#include "ein/measure/timing.hpp"
#include "ein_generated/measure_fsrcnn_searched_plan.hpp"
#include "ein_generated/measure_fsrcnn_written_plan.hpp"
#include "fsrcnn/layer.hpp"

namespace fsrcnn_test {

using namespace ein;

template <class Net>
void check_equals_interpreter(const Net& net) {
  ein_test::check_against_interpreter(net, 7, ein::runtime::generated_plan<std::remove_cvref_t<Net>>::tolerance);
}

TEST_CASE("FSRCNN's deconvolution: the measured search's plan equals the interpreter and is no slower than as written") {
  check_equals_interpreter(measure_fsrcnn::searched::net);
  check_equals_interpreter(measure_fsrcnn::written::net);
  std::printf("searched: %s\nas written: %s\n",
              std::string(ein::runtime::generated_plan<std::remove_cvref_t<decltype(measure_fsrcnn::searched::net)>>::description).c_str(),
              std::string(ein::runtime::generated_plan<std::remove_cvref_t<decltype(measure_fsrcnn::written::net)>>::description).c_str());
  std::vector<float> a7(32 * 32 * 56), k8(9 * 9 * 56), b8{0.25f}, image_s(64 * 64), image_w(64 * 64);
  eval::random_stream rng(3);
  for (auto* v : {&a7, &k8})
    for (auto& x : *v) x = static_cast<float>(rng.uniform());
  auto searched = ein::prepare(measure_fsrcnn::searched::net, {{"K8", std::as_const(k8)}, {"b8", std::as_const(b8)}});
  auto written = ein::prepare(measure_fsrcnn::written::net, {{"K8", std::as_const(k8)}, {"b8", std::as_const(b8)}});
  measure::timing_options o;
  o.runs = o.slow_runs = 15;
  o.very_slow_seconds = 10;
  auto t = measure::time_in_turns({[&] { searched.run({{"a7", std::as_const(a7)}, {"image", image_s}}); },
                                   [&] { written.run({{"a7", std::as_const(a7)}, {"image_as_written", image_w}}); }},
                                  o);
  std::printf("searched %.4f ms (median %.4f), as written %.4f ms (median %.4f)\n", t[0].seconds * 1e3,
              t[0].median * 1e3, t[1].seconds * 1e3, t[1].median * 1e3);
  // the measurement that chose the plan and this one may differ by the machine's noise, not more
  CHECK(t[0].seconds <= 1.5 * t[1].seconds);
}

}  // namespace fsrcnn_test
