// DCGAN's generator through ein_generate (search, H100 roofline model, host backend): the
// generated plan, run and prepared, equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_dcgan.hpp"
#include "ein_generated/model_dcgan_bf16.hpp"
#include "dcgan_small.hpp"
#include "harness.hpp"

TEST_CASE_TEMPLATE("DCGAN's generator (1/16 of its channels, batch 2): the generated host plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(dcgan_small::net<T>)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(dcgan_small::net<T>, seed, {"V1", "V2", "V3", "V4"});
}
