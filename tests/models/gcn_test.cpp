// GCN through ein_generate (host backend): the generated plan, run and prepared, equals the
// interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "ein_generated/model_gcn.hpp"
#include "ein_generated/model_gcn_bf16.hpp"
#include "gcn_small.hpp"
#include "harness.hpp"

TEST_CASE_TEMPLATE("GCN (1/32 of its backbone's channels, one bottleneck a stage, 64×64, batch 2): the generated host plan "
          "in T equals the interpreter", T, float, ein::bfloat16) {
  static_assert(ein::runtime::has_plan_v<decltype(gcn_small::net<T>)>);
  auto variances = models_test::names_ending(ein::reify(gcn_small::net<T>), "_v");
  REQUIRE(variances.size() == 17);  // the stem's, three a bottleneck and four shortcuts
  for (std::uint64_t seed : {1, 2}) models_test::check_model(gcn_small::net<T>, seed, variances);
}
