// FSRCNN through ein_generate (host backend): the generated plan, run and prepared, equals the
// interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_fsrcnn.hpp"
#include "ein_generated/model_fsrcnn_bf16.hpp"
#include "fsrcnn_small.hpp"
#include "harness.hpp"

TEST_CASE_TEMPLATE("FSRCNN (1/4 of its channels, batch 2): the generated host plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(fsrcnn_small::net<T>)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(fsrcnn_small::net<T>, seed, {});
}
