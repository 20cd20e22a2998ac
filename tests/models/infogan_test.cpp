// InfoGAN's generator through ein_generate (as written, host backend): the
// generated plan, run and prepared, equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_infogan.hpp"
#include "ein_generated/model_infogan_bf16.hpp"
#include "harness.hpp"
#include "infogan_small.hpp"

TEST_CASE_TEMPLATE("InfoGAN's generator (1/16 of its channels, batch 2): the generated host plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(infogan_small::net<T>)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(infogan_small::net<T>, seed, {});
}
