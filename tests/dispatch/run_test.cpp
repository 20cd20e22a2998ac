// ein::run without a generated header: the generic path (interpreter on bound host buffers),
// and the checks every run makes on its bindings.
#include <doctest/doctest.h>

#include <vector>

#include "codegen/e2e/programs.hpp"
#include "codegen/e2e/concurrent_harness.hpp"
#include "codegen/e2e/harness.hpp"
#include "codegen/e2e/hostile_bindings.hpp"
#include "codegen/e2e/prepared_harness.hpp"
#include "eval/hand_loops.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/dispatch/run.hpp"

namespace {

// The generic path against loops written without the IR (the interpreter it calls is not its
// own reference).
template <int... Id>
void check_generic(std::integer_sequence<int, Id...>) {
  auto one = [](auto object, int id) {
    static_assert(!ein::runtime::has_plan_v<decltype(object)>, "no generated header is included in this test");
    for (std::uint64_t seed : {4, 5})
      ein_test::check_against(object, seed, 1e-6, [&](const ein::eval::bindings& env) { return ein_test::hand_loops(id, env); });
  };
  (one(ein_test::hand_program<Id>{}, Id), ...);
}

}  // namespace

TEST_CASE("generic path equals hand-written loops on the hand-built programs") {
  check_generic(ein_test::hand_loop_programs{});
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

TEST_CASE("the generic path refuses null, misaligned, short and aliased buffers, naming the tensor") {
  auto hostile = [](auto object) {
    ein_test::check_hostile_bindings(ein_test::tensors_bound(ein::reify(object)),
                                     [&](const ein::runtime::bindings& b) { ein::run(object, b); });
  };
  hostile(ein_test::hand_program<0>{});
  hostile(ein_test::hand_program<1>{});
  hostile(ein_test::hand_program<2>{});
  hostile(ein_test::hand_program<3>{});
  hostile(ein_test::hand_program<4>{});
  hostile(ein_test::hand_program<5>{});
  hostile(ein_test::hand_program<6>{});
  hostile(ein_test::hand_program<7>{});
  std::vector<float> a(30), b(42), c(35);
  CHECK_THROWS_WITH_AS(ein::run(ein_test::matmul, {{"A", a}, {"B", b}, {"out", b.data() + 2}}),
                       "ein::run: tensor `out` is an output but its buffer overlaps the buffer bound to `B`; bind "
                       "outputs to memory of their own",
                       ein::user_error);
}

TEST_CASE("the generic path runs from several threads at once, directly and prepared") {
  auto concurrent = [](auto object) {
    auto p = ein::reify(object);
    ein_test::check_concurrent_runs(p, [&](const ein::runtime::bindings& b) { ein::run(object, b); }, 1e-6);
    auto env = ein::eval::random_inputs(p, 21);
    ein_test::host_buffers weights;
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) weights.bind_input(t.name, t.type, env.at(t.name));
    const auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
    ein_test::check_concurrent_runs(p, [&](const ein::runtime::bindings& b) { prepared.run(b); }, 1e-6, false);
  };
  concurrent(ein_test::hand_program<1>{});
  concurrent(ein_test::hand_program<5>{});
}

TEST_CASE("a captured run of the generic path replays on the buffers bound at the capture, as they are then") {
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_captured_against_interpreter(ein_test::hand_program<1>{}, seed, 1e-6);
    ein_test::check_captured_against_interpreter(ein_test::hand_program<5>{}, seed, 1e-6);
  }
}

TEST_CASE("has_plan is false for a program whose header is not included") {
  CHECK_FALSE(ein::runtime::has_plan<ein_test::hand_program<0>>::value);
  CHECK_FALSE(ein::runtime::has_plan_v<const ein_test::hand_program<1>&>);
}
