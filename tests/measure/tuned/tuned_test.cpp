// A host plan generated with TUNE ON (tuned/layer.hpp, as written, its two eOperators under the
// schedules tuned when the build generated it, one by reuse from the other) equals the interpreter.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "codegen/e2e/harness.hpp"
#include "ein_generated/measure_tuned_plan.hpp"
#include "tuned/layer.hpp"

TEST_CASE("a plan generated with TUNE ON equals the interpreter") {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(measure_tuned::net)>>;
  std::printf("tuned: %s\n", std::string(plan::description).c_str());
  ein_test::check_against_interpreter(measure_tuned::net, 7, plan::tolerance);
}
