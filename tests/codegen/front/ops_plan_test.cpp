// Stage two of the ein_generate test: the generated host plan of a model using every operator
// of ein::ops equals the interpreter on random inputs.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "codegen/front/ops_model.hpp"
#include "codegen/e2e/harness.hpp"
#include "ein_generated/codegen_ops.hpp"

TEST_CASE("generated host plan of every ein::ops operator equals the interpreter") {
  static_assert(ein::runtime::has_plan_v<decltype(codegen_ops::net)>);
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_against_interpreter(codegen_ops::net, seed, 1e-6);
    ein_test::check_against_interpreter(codegen_ops::net, seed, 1e-6, true);
  }
}

TEST_CASE("the generated plan has one eOperator per definition") {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(codegen_ops::net)>>;
  auto p = ein::reify(codegen_ops::net);
  std::size_t steps = 0;
  for (std::size_t at = 0; (at = plan::description.find("eOperator", at)) != std::string_view::npos; ++at) ++steps;
  CHECK(steps == p.definitions.size());
  CHECK(plan::target == ein::runtime::backend::host);
}
