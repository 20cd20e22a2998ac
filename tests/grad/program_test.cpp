// Programs differentiated as a whole: gradients summed over several readers, weights shared by
// several definitions, nested scopes named, intermediate definitions as targets, and generated
// programs against finite differences.
#include "grad/grad_support.hpp"

#include "support/generate.hpp"

namespace program_test {

using namespace grad_support;

TEST_CASE("a tensor read by several definitions and twice by one sums every share") {
  auto X = input("X", {5}), W = weight("W", {5});
  auto x = [&](affine i) { return make_access(X, {i}); };
  auto a = make_scope({{"i", 0, 5}}, {}, x(idx("i")) * x(idx("i") + 1) + make_access(W, {idx("i")}));
  auto b = make_scope({{"i", 0, 5}}, {}, make_unary(unary_fn::tanh, x(idx("i") - 2) * make_access(defined("a", a), {idx("i")})));
  auto c = make_scope({{"i", 0, 5}}, {{"k", 0, 5}},
                      make_access(defined("a", a), {idx("k")}) * make_access(defined("b", b), {idx("i")}) * make_access(W, {idx("k")}));
  auto g = checked(make_program({X, W}, {{"a", a}, {"b", b}, {"c", c}}, {"b", "c"}));
  // b is an output read by c: its gradient is its seed plus c's share
  CHECK(g.program.find_definition("b_grad_2"));
}

TEST_CASE("a weight shared by two layers, and a target that is an intermediate definition") {
  auto X = input("X", {3, 4}), W = weight("W", {4, 4});
  auto layer = [&](const tensor& in) {
    return make_scope({{"i", 0, 3}, {"j", 0, 4}}, {{"k", 0, 4}},
                      make_access(in, {idx("i"), idx("k")}) * make_access(W, {idx("k"), idx("j")}));
  };
  auto h1 = layer(X);
  auto a1 = make_scope({{"i", 0, 3}, {"j", 0, 4}}, {}, make_unary(unary_fn::sigmoid, make_access(defined("h1", h1), {idx("i"), idx("j")})));
  auto h2 = layer(defined("a1", a1));
  auto p = make_program({X, W}, {{"h1", h1}, {"a1", a1}, {"h2", h2}});
  checked(p);
  checked(p, {"a1", "W"});
}

TEST_CASE("nested scopes, at negative lower bounds, are named and differentiated") {
  auto A = input("A", {6}), B = weight("B", {4});
  auto inner = make_scope({{"t", -1, 5}}, {{"k", 0, 2}}, make_access(A, {idx("t") + idx("k")}) * make_access(B, {idx("k") + 1}));
  auto outer = make_scope({{"i", 0, 4}}, {}, make_unary(unary_fn::relu, make_access(inner, {idx("i") - 1})) +
                                                   make_access(inner, {idx("i") + 1}) * make_access(B, {idx("i")}));
  auto g = checked(make_program({A, B}, {{"y", outer}}));
  CHECK(g.program.find_definition("y_nested1"));
}

TEST_CASE("generated programs agree with finite differences, every input and weight differentiated") {
  eval::generate_options o;
  o.max_extent = 5, o.max_work = 3000, o.max_percent = 20;
  std::size_t kinks = 0, directions = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    auto p = eval::generate_program(seed, o);
    INFO("seed ", seed, ": ", to_string(p));
    auto targets = all_tensors(p);
    auto g = grad::gradient(p, targets);
    REQUIRE_NOTHROW(verify(g.program));
    auto r = grad::check_gradient(p, g, targets, seed);
    CHECK_MESSAGE(r.ok(), r.failure);
    kinks += r.kinks, directions += r.directions;
  }
  MESSAGE(directions, " directions compared, ", kinks, " left out at a kink");
  CHECK(directions > 1000);
}

}  // namespace program_test
