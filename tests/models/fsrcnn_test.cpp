// FSRCNN through ein_generate (host backend): the generated plan, run and prepared, equals the
// interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_fsrcnn.hpp"
#include "fsrcnn_small.hpp"
#include "harness.hpp"

TEST_CASE("FSRCNN (1/4 of its channels, batch 2): the generated host plan equals the interpreter") {
  static_assert(ein::runtime::has_plan_v<decltype(fsrcnn_small::net)>);
  for (std::uint64_t seed : {1, 2}) models_test::check_model(fsrcnn_small::net, seed, 1e-4, {});
}
