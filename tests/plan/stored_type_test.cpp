// A 16-bit definition's last step is a library call only where the call writes the definition's
// type: search::stored_as turns a product of float values into the eOperator that rounds what it
// stores; cuBLAS runs a 16-bit product on cuda, no host library does, and none matches one of
// mixed types (docs/decisions/0028).
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "ein/codegen/backend.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/ir/expr.hpp"
#include "ein/match/match.hpp"
#include "ein/search/instantiate.hpp"

namespace stored_type_test {

using namespace ein;

namespace {

// y[i, j] = Σ_k A[i, k]·B[k, j], 64 × 64 × 64, A and B of the types given.
ir::scope_ptr product(ir::dtype a, ir::dtype b) {
  ir::tensor A{"A", a, {64, 64}, ir::tensor_role::input}, B{"B", b, {64, 64}, ir::tensor_role::weight};
  return ir::make_scope({{"i", 0, 64}, {"j", 0, 64}}, {{"k", 0, 64}},
                        ir::make_access(A, {ir::idx("i"), ir::idx("k")}) * ir::make_access(B, {ir::idx("k"), ir::idx("j")}));
}

cost::roofline host_model() { return cost::roofline(cost::load_profile(std::string(EIN_PROFILE_DIR) + "/host.json")); }

}  // namespace

TEST_CASE("a product of float values stored as float is a library call; stored as bfloat16, the eOperator") {
  auto model = host_model();
  const auto caps = codegen::capabilities_of(codegen::backend::host, true, false, true);
  auto as_float = search::instantiate_stored(product(ir::dtype::f32, ir::dtype::f32), ir::dtype::f32, model);
  REQUIRE(as_float.kernels.size() == 1);
  REQUIRE(as_float.kernels.back().library());
  CHECK(caps.calls(*as_float.kernels.back().op));
  auto as_bf16 = search::stored_as(as_float, ir::dtype::bf16, model);
  CHECK_FALSE(as_bf16.kernels.back().library());
  CHECK(as_bf16.kernels.back().operators.empty());
  CHECK(as_bf16.seconds > as_float.seconds);  // a compute-bound eOperator is slower than the call
  CHECK(as_bf16.seconds == doctest::Approx(search::eoperator_seconds(*as_float.expr, model)));
}

TEST_CASE("an eOperator storing a 16-bit definition is priced writing 2 bytes an element") {
  // y[i] = Σ_r X[i + r] over bfloat16 X: no library operator, an eOperator reading 2 bytes an element
  ir::tensor X{"X", ir::dtype::bf16, {1002}, ir::tensor_role::input};
  auto sum = ir::make_scope({{"i", 0, 1000}}, {{"r", 0, 3}}, ir::make_access(X, {ir::idx("i") + ir::idx("r")}));
  auto model = host_model();
  auto as_bf16 = search::instantiate_stored(sum, ir::dtype::bf16, model);
  auto as_float = search::instantiate_stored(sum, ir::dtype::f32, model);
  REQUIRE(as_bf16.kernels.size() == 1);
  REQUIRE_FALSE(as_bf16.kernels.back().library());
  CHECK(as_bf16.kernels.back().facts.bytes == 2.0 * 1002 + 2.0 * 1000);
  CHECK(as_float.kernels.back().facts.bytes == 2.0 * 1002 + 4.0 * 1000);
  CHECK(as_bf16.seconds <= as_float.seconds);
}

TEST_CASE("a product of 16-bit tensors is a library call on cuda only; one of mixed types does not match") {
  const auto host = codegen::capabilities_of(codegen::backend::host, true, false, true);
  const auto cuda = codegen::capabilities_of(codegen::backend::cuda, true, true, false);
  for (auto [a, b, matched, by_host_wanted, by_cuda_wanted] :
       {std::tuple{ir::dtype::f32, ir::dtype::f32, true, true, true},
        std::tuple{ir::dtype::f16, ir::dtype::f16, true, false, true},
        std::tuple{ir::dtype::bf16, ir::dtype::bf16, true, false, true},
        std::tuple{ir::dtype::f32, ir::dtype::bf16, false, false, false},
        std::tuple{ir::dtype::bf16, ir::dtype::f32, false, false, false}}) {
    CAPTURE(std::string(ir::name(a)));
    CAPTURE(std::string(ir::name(b)));
    auto instances = match::match(*product(a, b));
    CHECK(instances.empty() != matched);
    bool by_host = false, by_cuda = false;
    for (auto& op : instances) by_host = by_host || host.calls(op), by_cuda = by_cuda || cuda.calls(op);
    CHECK(by_host == by_host_wanted);
    CHECK(by_cuda == by_cuda_wanted);
  }
}

}  // namespace stored_type_test
