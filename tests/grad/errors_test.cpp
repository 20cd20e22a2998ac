// Bad requests of a gradient: each is a user_error naming what is wrong.
#include "grad/grad_support.hpp"

namespace errors_test {

using namespace grad_support;

program small() {
  auto X = input("X", {4}), W = weight("W", {4}), U = weight("U", {4});
  auto y = make_scope({{"i", 0, 4}}, {}, make_access(X, {idx("i")}) * make_access(W, {idx("i")}));
  auto z = make_scope({{"i", 0, 4}}, {}, make_unary(unary_fn::step, make_access(defined("y", y), {idx("i")})));
  auto u = make_scope({{"i", 0, 4}}, {}, make_access(U, {idx("i")}) + make_access(defined("y", y), {idx("i")}));
  return make_program({X, W, U}, {{"y", y}, {"z", z}, {"u", u}}, {"z", "y"});
}

TEST_CASE("a target that is no tensor, an output, named twice, or that no output depends on") {
  auto p = small();
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"V"}), doctest::Contains("`V` is no tensor of program `p`"), user_error);
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"y"}), doctest::Contains("`y` is an output of program `p`"), user_error);
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"W", "W"}), doctest::Contains("`W` is named twice"), user_error);
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"U"}), doctest::Contains("no output of program `p` depends on `U`"), user_error);
}

TEST_CASE("a function without a derivative on the way to a target names the definition and the function") {
  auto p = small();
  p.outputs = {"z"};
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"X"}),
                       doctest::Contains("definition `z` applies step, which has no derivative"), user_error);
}

TEST_CASE("a seed or gradient name the program already uses") {
  auto p = small();
  p.tensors.push_back(input("y_grad", {4}));
  CHECK_THROWS_WITH_AS(grad::gradient(p, {"X"}), doctest::Contains("program `p` already has a tensor named `y_grad`, the name of the seed of output `y`"), user_error);
  auto q = small();
  q.tensors.push_back(input("W_grad", {4}));
  CHECK_THROWS_WITH_AS(grad::gradient(q, {"W"}), doctest::Contains("already has a tensor named `W_grad`, the name of the gradient of `W`"), user_error);
}

}  // namespace errors_test
