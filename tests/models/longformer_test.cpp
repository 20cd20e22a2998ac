// One Longformer layer through ein_generate (host backend): the generated plan, run and
// prepared, equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_longformer.hpp"
#include "ein_generated/model_longformer_bf16.hpp"
#include "harness.hpp"
#include "longformer_small.hpp"

TEST_CASE_TEMPLATE("Longformer (sequence 64, 32 features, 2 heads, half width 4, dilation 4, batch 2): the generated host "
          "plan in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(longformer_small::net<T>)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(longformer_small::net<T>, seed, {});
}
