// CSRNet's back-end through ein_generate (host backend): the generated plan, run and prepared,
// equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "csrnet_small.hpp"
#include "ein_generated/model_csrnet.hpp"
#include "ein_generated/model_csrnet_bf16.hpp"
#include "harness.hpp"

TEST_CASE_TEMPLATE("CSRNet's back-end (1/16 of its channels, batch 2): the generated host plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(csrnet_small::net<T>)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(csrnet_small::net<T>, seed, {});
}
