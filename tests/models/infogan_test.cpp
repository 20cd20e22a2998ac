// InfoGAN's generator through ein_generate (as written, host backend): the
// generated plan, run and prepared, equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_infogan.hpp"
#include "harness.hpp"
#include "infogan_small.hpp"

TEST_CASE("InfoGAN's generator (1/16 of its channels, batch 2): the generated host plan equals the interpreter") {
  static_assert(ein::runtime::has_plan_v<decltype(infogan_small::net)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(infogan_small::net, seed, 1e-4, {});
}
