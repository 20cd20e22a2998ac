// DCGAN's generator through ein_generate (search, H100 roofline model, host backend): the
// generated plan, run and prepared, equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_dcgan.hpp"
#include "dcgan_small.hpp"
#include "harness.hpp"

TEST_CASE("DCGAN's generator (1/16 of its channels, batch 2): the generated host plan equals the interpreter") {
  static_assert(ein::runtime::has_plan_v<decltype(dcgan_small::net)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(dcgan_small::net, seed, 1e-4, {"V1", "V2", "V3", "V4"});
}
