// A generated family of programs for the search: compute-bound matrix products, batched products
// and 3×3 convolutions with weights stored in random dimension orders, an activation and a second
// product or a bias after them, so that plans hold derived library calls, weight transforms and
// eOperators.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "codegen/e2e/programs.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/expr.hpp"

namespace ein_test {

namespace family {

namespace ir = ein::ir;
using ir::idx;

inline ir::tensor tensor(std::string name, std::vector<std::int64_t> shape, ir::tensor_role role) {
  return {std::move(name), ir::dtype::f32, std::move(shape), role};
}

// A read of weight `name` whose logical dimensions (`extents`, read at `index`) are stored in a
// random order.
inline ir::expr weight_read(const std::string& name, const std::vector<std::int64_t>& extents,
                            const std::vector<ir::affine>& index, ein::eval::random_stream& rng,
                            std::vector<ir::tensor>& tensors) {
  std::vector<std::size_t> order(extents.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1))]);
  std::vector<std::int64_t> shape;
  std::vector<ir::affine> reads;
  for (auto d : order) shape.push_back(extents[d]), reads.push_back(index[d]);
  tensors.push_back(tensor(name, shape, ir::tensor_role::weight));
  return ir::make_access(tensors.back(), reads);
}

inline ir::tensor definition(const std::string& name, const ir::scope& s) {
  return {name, ir::dtype::f32, s.shape(), ir::tensor_role::definition};
}

}  // namespace family

/// Program `seed` of the family: by seed % 3, (0) y = relu(X·W1) then z = y·W2, (1) a batched
/// product with a transposed weight then a bias, (2) a 3×3 convolution (NHWC, padding 1) under
/// relu. Sizes are drawn so that the products are compute-bound (EinNet §5), weights stored in
/// random orders; the outputs are the last definition.
inline ein::ir::program searched_program(std::uint64_t seed) {
  using namespace family;
  ein::eval::random_stream rng(seed * 0x9e3779b97f4a7c15ULL + 7);
  std::vector<ir::tensor> tensors;
  std::vector<ir::definition> defs;
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
  switch (seed % 3) {
    case 0: {
      std::int64_t m = pick(32, 48), k = pick(32, 48), n = pick(32, 48), p = pick(32, 48);
      tensors.push_back(tensor("X", {m, k}, ir::tensor_role::input));
      auto x = ir::make_access(tensors.back(), {idx("i"), idx("k")});
      auto w1 = weight_read("W1", {k, n}, {idx("k"), idx("j")}, rng, tensors);
      auto prod = ir::make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}}, x * w1);
      auto y = ir::make_scope({{"i", 0, m}, {"j", 0, n}}, {},
                              ir::make_unary(ir::unary_fn::relu, ir::make_access(prod, {idx("i"), idx("j")})));
      defs.push_back({"y", y, ir::dtype::f32});
      auto w2 = weight_read("W2", {n, p}, {idx("j"), idx("l")}, rng, tensors);
      auto z = ir::make_scope({{"i", 0, m}, {"l", 0, p}}, {{"j", 0, n}},
                              ir::make_access(definition("y", *y), {idx("i"), idx("j")}) * w2);
      defs.push_back({"z", z, ir::dtype::f32});
      break;
    }
    case 1: {
      std::int64_t b = pick(2, 4), m = pick(32, 48), k = pick(32, 48), n = pick(32, 48);
      tensors.push_back(tensor("X", {b, k, m}, ir::tensor_role::input));
      auto x = ir::make_access(tensors.back(), {idx("b"), idx("k"), idx("i")});
      auto w = weight_read("W", {b, k, n}, {idx("b"), idx("k"), idx("j")}, rng, tensors);
      tensors.push_back(tensor("bias", {n}, ir::tensor_role::weight));
      auto bias = ir::make_access(tensors.back(), {idx("j")});
      auto prod = ir::make_scope({{"b", 0, b}, {"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}}, x * w);
      auto z = ir::make_scope({{"b", 0, b}, {"i", 0, m}, {"j", 0, n}}, {},
                              ir::make_unary(ir::unary_fn::sigmoid,
                                             ir::make_access(prod, {idx("b"), idx("i"), idx("j")})) + bias);
      defs.push_back({"z", z, ir::dtype::f32});
      break;
    }
    default: {
      std::int64_t hw = pick(6, 9), c = pick(16, 24), f = pick(16, 24);
      tensors.push_back(tensor("A", {1, hw, hw, c}, ir::tensor_role::input));
      auto a = ir::make_access(tensors.back(), {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")});
      auto k = weight_read("K", {3, 3, f, c}, {idx("r"), idx("s"), idx("f"), idx("c")}, rng, tensors);
      auto conv = ir::make_scope({{"n", 0, 1}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}},
                                 {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, c}}, a * k);
      auto z = ir::make_scope(conv->traversal, {},
                              ir::make_unary(ir::unary_fn::relu,
                                             ir::make_access(conv, {idx("n"), idx("h"), idx("w"), idx("f")})));
      defs.push_back({"z", z, ir::dtype::f32});
      break;
    }
  }
  return {"searched_" + std::to_string(seed), tensors, defs, {defs.back().name}};
}

/// Programs family_base + k, k < family_count, are searched_program(k + 1): their headers are
/// generated from the search's plan for a host build.
inline constexpr int family_base = 400;
inline constexpr int family_count = 6;

template <>
inline ir::program build<family_base>() { return searched_program(1); }
template <>
inline ir::program build<family_base + 1>() { return searched_program(2); }
template <>
inline ir::program build<family_base + 2>() { return searched_program(3); }
template <>
inline ir::program build<family_base + 3>() { return searched_program(4); }
template <>
inline ir::program build<family_base + 4>() { return searched_program(5); }
template <>
inline ir::program build<family_base + 5>() { return searched_program(6); }

/// `family<k>` is hand_program<family_base + k>.
template <int K>
inline constexpr hand_program<family_base + K> family_program;

}  // namespace ein_test
