// Shared checks of the intra-expression rule tests: random inputs for a scope, interpreter
// equality, picking a candidate by rule and detail, and the hand-made expression families.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/derive/rule.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"

namespace rules_test {

using namespace ein;
using namespace ein::ir;

/// Random values in [-1, 1) (never 0) for every tensor `s` reads.
inline eval::bindings random_bindings(const scope& s, std::uint64_t seed) {
  std::map<std::string, tensor> ts;
  for (auto& t : ir::tensors_read(s.body, ir::depth::nested)) ts.emplace(t.name, t);
  eval::random_stream rng(seed);
  eval::bindings b;
  for (auto& [n, t] : ts) b[n] = eval::random_dense(t.shape, rng);
  return b;
}

/// Same box and same values (to rounding) on three random inputs.
inline bool same_values(const scope_ptr& a, const scope_ptr& b) {
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    auto env = random_bindings(*a, seed);
    auto va = eval::evaluate(*a, env), vb = eval::evaluate(*b, env);
    if (va.shape != vb.shape || va.lower != vb.lower) return false;
    if (eval::max_rel_error(vb, va) > 1e-12) return false;
  }
  return true;
}

/// Every candidate verifies, names its rule, and equals its source under the interpreter.
inline void check_all(const scope_ptr& source, const std::vector<derive::candidate>& cs,
                      const char* rule) {
  for (auto& c : cs) {
    INFO("source: ", to_string(*source));
    INFO("candidate (", derive::to_string(c.how), "): ", to_string(*c.result));
    CHECK(c.how.rule == rule);
    CHECK(c.how.at);
    CHECK_NOTHROW(verify(*c.result));
    CHECK(same_values(source, c.result));
  }
}

/// The one candidate whose step prints as `how` (derive::to_string); fails the test when there is
/// none.
inline scope_ptr pick(const std::vector<derive::candidate>& cs, const std::string& how) {
  for (auto& c : cs)
    if (derive::to_string(c.how) == how) return c.result;
  std::string all;
  for (auto& c : cs) all += "\n  " + derive::to_string(c.how);
  FAIL("no candidate `" << how << "` among:" << all);
  return nullptr;
}

inline tensor input(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::input};
}

// ---- hand-made expression families ----

/// L_{i,j} Σ_k A[i,k] * B[k,j]
inline scope_ptr matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  return make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                    make_access(input("A", {m, k}), {idx("i"), idx("k")}) *
                        make_access(input("B", {k, n}), {idx("k"), idx("j")}));
}

/// Convolution, NHWC without batch, `pad` zeros each side:
/// L_{h,w,f} Σ_{r,s,c} A[h + r - pad, w + s - pad, c] * K[r, s, f, c]
inline scope_ptr conv(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k,
                      std::int64_t pad) {
  std::int64_t out = hw + 2 * pad - k + 1;
  return make_scope({{"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                    {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(input("A", {hw, hw, c}),
                                {idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                        make_access(input("K", {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

/// G2BMM (band matrix product, dilation d): L_{b,i,w} Σ_k A[b,i,k] * B[b, i + d*(w - W), k]
inline scope_ptr g2bmm(std::int64_t b, std::int64_t m, std::int64_t k, std::int64_t w,
                       std::int64_t d) {
  return make_scope({{"b", 0, b}, {"i", 0, m}, {"w", 0, 2 * w + 1}}, {{"k", 0, k}},
                    make_access(input("A", {b, m, k}), {idx("b"), idx("i"), idx("k")}) *
                        make_access(input("B", {b, m, k}),
                                    {idx("b"), idx("i") + (idx("w") - w) * d, idx("k")}));
}

/// Nested scopes with a negative lower bound: a padded copy of A (relu'd) read by a 1-D stencil.
/// L_{i} Σ_{r} {L_{t:[-1, n+1)} relu(A[t])}[i + r - 1] * W[r]
inline scope_ptr stencil(std::int64_t n) {
  auto padded = make_scope({{"t", -1, n + 1}}, {},
                           make_unary(unary_fn::relu, make_access(input("A", {n}), {idx("t")})));
  return make_scope({{"i", 0, n}}, {{"r", 0, 3}},
                    make_access(padded, {idx("i") + idx("r") - 1}) *
                        make_access(input("W", {3}), {idx("r")}));
}

/// Floor division and modulo in indices: L_{m, j} Σ_k A[m / 3, m % 3, k] * B[k, j] + 0.5
inline scope_ptr reshaped(std::int64_t a, std::int64_t n, std::int64_t k) {
  return make_scope({{"m", 0, 3 * a}, {"j", 0, n}}, {{"k", 0, k}},
                    make_access(input("A", {a, 3, k}), {idx("m").floordiv(3), idx("m").mod(3), idx("k")}) *
                            make_access(input("B", {k, n}), {idx("k"), idx("j")}) +
                        make_constant(0.5));
}

/// The families every rule is run on.
inline std::vector<scope_ptr> families() {
  return {matmul(3, 4, 5), conv(5, 3, 2, 3, 1), conv(4, 2, 2, 2, 0), g2bmm(2, 6, 3, 2, 2),
          stencil(6), reshaped(2, 3, 4)};
}

}  // namespace rules_test
