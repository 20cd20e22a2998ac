// ein::run without a generated header: the generic path (interpreter on bound host buffers),
// and the checks every run makes on its bindings.
#include <doctest/doctest.h>

#include <vector>

#include "codegen/e2e/programs.hpp"
#include "codegen/e2e/harness.hpp"
#include "ein/runtime/run.hpp"

namespace {

template <int Id>
void check_generic() {
  static_assert(!ein::runtime::has_plan_v<ein_test::hand_program<Id>>,
                "no generated header is included in this test");
  for (std::uint64_t seed : {4, 5})
    ein_test::check_against_interpreter(ein_test::hand_program<Id>{}, seed, Id == 7 ? 1e-13 : 1e-6);
}

}  // namespace

TEST_CASE("generic path equals the interpreter on every hand-built program") {
  check_generic<0>();
  check_generic<1>();
  check_generic<2>();
  check_generic<3>();
  check_generic<4>();
  check_generic<5>();
  check_generic<6>();
  check_generic<7>();
}

TEST_CASE("ein::run checks names, element types, counts and shapes of its bindings") {
  std::vector<float> a(30, 0.5f), b(42, 2.0f), c(35);
  std::vector<double> a_double(30);
  ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", c}});
  CHECK(c[34] == 6.0f);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a_double}, {"B", b}, {"out", c}}),
                       "ein::run: tensor `A` holds float but a buffer of double is bound to it",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"A", a}, {"B", b}, {"out", c}}),
                       "ein::run: tensor `A` is bound twice", ein::user_error);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", c}, {"C", c}}),
                       "ein::run: `C` is bound but is no input, weight or output of the program",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(
      ein::run(ein_test::matmul, {{"A", a.data(), {6, 5}}, {"B", b}, {"out", c}}),
      "ein::run: tensor `A` has shape [5, 6] but the binding says [6, 5]", ein::user_error);
  CHECK_NOTHROW(ein::run(ein_test::matmul, {{"A", a.data(), {5, 6}}, {"B", b.data()}, {"out", c.data()}}));
  const float* const_b = b.data();
  CHECK_NOTHROW(ein::run(ein_test::matmul, {{"A", std::span<const float>(a)}, {"B", const_b, {6, 7}},
                                            {"out", std::span<float>(c)}}));
  CHECK(c[0] == 6.0f);
  float* null = nullptr;
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", null}}),
                       "ein::run: tensor `out`: the bound pointer is null", ein::user_error);
  CHECK_THROWS_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", std::span<float>(c).first(3)}}),
                  ein::user_error);
}

TEST_CASE("has_plan is false for a program whose header is not included") {
  CHECK_FALSE(ein::runtime::has_plan<ein_test::hand_program<0>>::value);
  CHECK_FALSE(ein::runtime::has_plan_v<const ein_test::hand_program<1>&>);
}
