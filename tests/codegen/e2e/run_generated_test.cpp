// Stage two of the codegen test: the generated host headers of the hand-built programs are
// compiled here, and each plan must equal the interpreter on random inputs, run directly and
// prepared (ein::prepare, then several runs).
#define EIN_STRICT  // every program here must have its generated plan
#include <doctest/doctest.h>

#include "codegen/e2e/programs.hpp"
#include "codegen/e2e/concurrent_harness.hpp"
#include "codegen/e2e/harness.hpp"
#include "codegen/e2e/hostile_bindings.hpp"
#include "codegen/e2e/prepared_harness.hpp"
#include "codegen/e2e/generator_support.hpp"
#include "ein/codegen/header.hpp"
#include "ein_generated/hand_batch_gemm.hpp"
#include "ein_generated/hand_conv_cudnn.hpp"
#include "ein_generated/hand_conv_depthwise_cudnn.hpp"
#include "ein_generated/hand_conv_epilogue.hpp"
#include "ein_generated/hand_conv_nhwc.hpp"
#include "ein_generated/hand_conv_transpose_cudnn.hpp"
#include "ein_generated/hand_elementwise.hpp"
#include "ein_generated/hand_floordiv_mod.hpp"
#include "ein_generated/hand_fuzz_all.hpp"
#include "ein_generated/hand_g2bmm.hpp"
#include "ein_generated/hand_gemm_chain.hpp"
#include "ein_generated/hand_gemm_epilogue.hpp"
#include "ein_generated/hand_gemm_f64.hpp"
#include "ein_generated/hand_matmul.hpp"
#include "ein_generated/hand_max_pool.hpp"
#include "ein_generated/hand_min_window.hpp"
#include "ein_generated/hand_nested.hpp"
#include "ein_generated/hand_relu_chain.hpp"
#include "ein_generated/hand_scalar_f64.hpp"
#include "ein_generated/hand_softmax.hpp"
#include "ein_generated/hand_two_definitions.hpp"

namespace {


// The plan's outputs equal the interpreter's within the plan's tolerance (it follows the
// arithmetic the plan was generated with).
template <int Id>
void check_generated() {
  constexpr ein_test::hand_program<Id> object;
  using plan = ein::runtime::generated_plan<ein_test::hand_program<Id>>;
  const double tolerance = plan::tolerance;
  static_assert(ein::runtime::has_plan_v<decltype(object)>, "the generated header defines the plan");
  static_assert(plan::target == ein::runtime::backend::host);
  // The hand-built programs' keys are fixed numbers, so the plan's text stands in for a
  // fingerprint: the header must describe the program the test reifies now.
  ein::codegen::options o;
  o.name = std::string(plan::name);
  o.object = Id < ein_test::fuzz_base
                 ? std::string("ein_test::") + ein_test::object_names[Id]
                 : "ein_test::fuzz<" + std::to_string(Id - ein_test::fuzz_base) + ">";
  REQUIRE(plan::description ==
          ein::codegen::describe(ein::plan::make_plan(ein::reify(object),
                                                      ein_test::generated_capabilities(ein::codegen::backend::host)),
                                 o));
  for (std::uint64_t seed : {1, 2, 3}) {
    ein_test::check_against_interpreter(object, seed, tolerance);
    ein_test::check_against_interpreter(object, seed, tolerance, true);
  }
  ein_test::check_prepared_against_interpreter(object, 4, tolerance);
  // run() and run_host() check every binding before they compute
  auto bound = ein_test::tensors_bound(ein::reify(object));
  ein_test::check_hostile_bindings(bound, [&](const ein::runtime::bindings& b) { ein::run(object, b); });
  ein_test::check_hostile_bindings(bound, [](const ein::runtime::bindings& b) { plan::run_host(b); });
}

template <int... K>
void check_fuzz(std::integer_sequence<int, K...>) {
  (check_generated<ein_test::fuzz_base + K>(), ...);
}

}  // namespace

TEST_CASE("generated host plan equals the interpreter: matmul") { check_generated<0>(); }
TEST_CASE("generated host plan equals the interpreter: conv NHWC with padding") { check_generated<1>(); }
TEST_CASE("generated host plan equals the interpreter: elementwise, every unary function") { check_generated<2>(); }
TEST_CASE("generated host plan equals the interpreter: g2bmm with dilation") { check_generated<3>(); }
TEST_CASE("generated host plan equals the interpreter: two definitions, negative box") { check_generated<4>(); }
TEST_CASE("generated host plan equals the interpreter: nested scopes") { check_generated<5>(); }
TEST_CASE("generated host plan equals the interpreter: floor division and modulo") { check_generated<6>(); }
TEST_CASE("generated host plan equals the interpreter: double, scalar output") { check_generated<7>(); }

TEST_CASE("generated host plan equals the interpreter: chained matmuls, transposed operands") {
  check_generated<8>();
}
TEST_CASE("generated host plan equals the interpreter: batch matmul") { check_generated<9>(); }
TEST_CASE("generated host plan equals the interpreter: double matmul with a scale") { check_generated<10>(); }
TEST_CASE("generated host plan equals the interpreter: conv NHWC, KRSC filter") { check_generated<11>(); }
TEST_CASE("generated host plan equals the interpreter: transposed conv, stride 2") { check_generated<12>(); }
TEST_CASE("generated host plan equals the interpreter: max pooling, padded points left out") { check_generated<13>(); }
TEST_CASE("generated host plan equals the interpreter: stable softmax (max, exp, sum, divide)") {
  check_generated<14>();
}
TEST_CASE("generated host plan equals the interpreter: min window with +inf ends, max/min nodes") {
  check_generated<15>();
}

TEST_CASE("generated host plan equals the interpreter: a product ending in bias, residual and ReLU") {
  check_generated<16>();
}
TEST_CASE("generated host plan equals the interpreter: 40 layers of product, bias and ReLU") { check_generated<17>(); }
TEST_CASE("generated host plan equals the interpreter: a convolution ending in bias and ReLU") {
  check_generated<18>();
}

TEST_CASE("generated host plan equals the interpreter: a depthwise convolution") { check_generated<19>(); }

TEST_CASE("a BLAS call ends in the bias, residual and ReLU after it: 40 layers are 40 steps, not 80") {
  using one = ein::runtime::generated_plan<ein_test::hand_program<16>>;
  using chain = ein::runtime::generated_plan<ein_test::hand_program<17>>;
  CAPTURE(one::description);
  auto steps = [](std::string_view d) {
    std::size_t n = 0;
    for (auto at = d.find("\n  "); at != std::string_view::npos; at = d.find("\n  ", at + 1)) ++n;
    return n;
  };
  if (ein_test::have_cblas) {
    CHECK(one::description.find("out = library matmul(A=A+0, B=W+0) batch=1 m=48 n=40 k=64 lda=64 ldb=40 ldc=40 "
                                "strides=0,0,0 epilogue(bias=b@1, residual=R, relu)  [output]") != std::string_view::npos);
    CHECK(steps(chain::description) == 40);
    CHECK(chain::description.find("h39 = library matmul(A=h38+0, B=W39+0) batch=1 m=32 n=32 k=32 lda=32 ldb=32 ldc=32 "
                                  "strides=0,0,0 epilogue(bias=b39@1, relu)  [output]") != std::string_view::npos);
  } else {
    CHECK(steps(chain::description) == 80);
  }
}

TEST_CASE("compute-bound matrix products are library calls in the plan, small ones eOperators") {
  using chain = ein::runtime::generated_plan<ein_test::hand_program<8>>;
  using batch = ein::runtime::generated_plan<ein_test::hand_program<9>>;
  using f64 = ein::runtime::generated_plan<ein_test::hand_program<10>>;
  using small = ein::runtime::generated_plan<ein_test::hand_program<0>>;
  CAPTURE(chain::description);
  CAPTURE(batch::description);
  CAPTURE(f64::description);
  if (ein_test::have_cblas) {
    CHECK(chain::description.find("t = library matmul(A=A+0, B=B+0) batch=1 m=40 n=48 k=36 A^T B^T") !=
          std::string_view::npos);
    CHECK(chain::description.find("out = library matmul(A=t+0, B=D+0) batch=1 m=40 n=32 k=48") !=
          std::string_view::npos);
    CHECK(batch::description.find("out = library batch_matmul(") != std::string_view::npos);
    CHECK(f64::description.find("out = library matmul(") != std::string_view::npos);
  } else {
    CHECK(chain::description.find("library") == std::string_view::npos);
  }
  CHECK(small::description.find("library") == std::string_view::npos);
}

TEST_CASE("a generated plan describes itself and checks its bindings") {
  using plan = ein::runtime::generated_plan<ein_test::hand_program<0>>;
  CHECK(plan::name == "hand_matmul");
  CHECK(plan::description.find("out = eOperator") != std::string_view::npos);
  std::vector<float> a(30, 1.0f), b(42, 1.0f), c(35), short_c(34);
  CHECK_NOTHROW(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", c}}));
  CHECK(c[0] == 6.0f);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}}),
                       "ein::run: tensor `out`: no buffer is bound to it", ein::user_error);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", short_c}}),
                       "ein::run: tensor `out` has 35 elements but the bound buffer has 34",
                       ein::user_error);
  CHECK_THROWS_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", c}, {"D", c}}),
                  ein::user_error);
  const std::vector<float>& const_c = c;
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", const_c}}),
                       "ein::run: tensor `out` is an output but the bound buffer is const",
                       ein::user_error);
}

TEST_CASE("generated host plans of generated programs equal the interpreter") {
  check_fuzz(std::make_integer_sequence<int, ein_test::fuzz_count>{});
}

TEST_CASE("one generated host plan runs from several threads at once, directly and prepared") {
  auto concurrent = [](auto object, double tolerance) {
    using plan = ein::runtime::generated_plan<decltype(object)>;
    auto p = ein::reify(object);
    ein_test::check_concurrent_runs(p, [&](const ein::runtime::bindings& b) { ein::run(object, b); }, tolerance);
    ein_test::check_concurrent_runs(p, [](const ein::runtime::bindings& b) { plan::run_host(b); }, tolerance);
    auto env = ein::eval::random_inputs(p, 21);
    ein_test::host_buffers weights;
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) weights.bind_input(t.name, t.type, env.at(t.name));
    const auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
    ein_test::check_concurrent_runs(p, [&](const ein::runtime::bindings& b) { prepared.run(b); }, tolerance, false);
  };
  concurrent(ein_test::matmul, 1e-6);
  concurrent(ein_test::conv_nhwc, 1e-6);
  concurrent(ein_test::nested, 1e-6);
  concurrent(ein_test::gemm_chain, 1e-5);  // CBLAS calls where the test links a CBLAS
  concurrent(ein_test::batch_gemm, 1e-5);
  concurrent(ein_test::hand_program<ein_test::fuzz_base + 3>{}, 1e-5);
}
