// ResNet-18 through ein_generate (host backend): the generated plan, run and prepared, equals
// the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_resnet18.hpp"
#include "ein_generated/model_resnet18_bf16.hpp"
#include "harness.hpp"
#include "resnet18_small.hpp"

TEST_CASE_TEMPLATE("ResNet-18 (1/16 of its channels, 32×32, batch 2): the generated host plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(resnet18_small::net<T>)>);
  auto variances = models_test::names_ending(ein::reify(resnet18_small::net<T>), "_v");
  REQUIRE(variances.size() == 20);  // every convolution's batch normalization
  for (std::uint64_t seed : {1, 2}) models_test::check_model(resnet18_small::net<T>, seed, variances);
}
