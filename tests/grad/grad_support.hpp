// Programs the gradient tests differentiate, and the check every test makes: the gradient
// program verifies and agrees with central finite differences of the forward program.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ein/grad/check.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace grad_support {

using namespace ein;
using namespace ein::ir;

inline tensor input(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f64, std::move(shape), tensor_role::input};
}
inline tensor weight(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f64, std::move(shape), tensor_role::weight};
}
inline tensor defined(const std::string& name, const scope_ptr& s) {
  return {name, dtype::f64, s->shape(), tensor_role::definition};
}

/// A program of `defs` (name, value) reading `tensors`, whose outputs are `outputs` (the last
/// definition when empty).
inline program make_program(std::vector<tensor> tensors, std::vector<std::pair<std::string, scope_ptr>> defs,
                            std::vector<std::string> outputs = {}) {
  program p{"p", std::move(tensors), {}, std::move(outputs)};
  for (auto& [n, v] : defs) p.definitions.push_back({n, v, dtype::f64});
  if (p.outputs.empty()) p.outputs.push_back(p.definitions.back().name);
  return p;
}

/// The inputs and weights of `p`: what a training step differentiates.
inline std::vector<std::string> all_tensors(const program& p) {
  std::vector<std::string> out;
  for (auto& t : p.tensors) out.push_back(t.name);
  return out;
}

/// The gradient of `p` for `targets` (every input and weight when empty): it verifies, and
/// agrees with finite differences on inputs from seeds 1 and 2. Returns it.
inline grad::gradient_program checked(const program& p, std::vector<std::string> targets = {}) {
  if (targets.empty()) targets = all_tensors(p);
  auto g = grad::gradient(p, targets);
  INFO(to_string(g.program));
  REQUIRE_NOTHROW(verify(g.program));
  for (std::uint64_t seed : {1, 2}) {
    auto r = grad::check_gradient(p, g, targets, seed);
    CHECK_MESSAGE(r.ok(), r.failure);
    CHECK(r.directions > 0);
  }
  return g;
}

/// The definition `name` of `p`.
inline const definition& definition_of(const program& p, const std::string& name) {
  auto* d = p.find_definition(name);
  REQUIRE_MESSAGE(d, "no definition " << name);
  return *d;
}

/// The number of constant scopes (indicators, window numbers) a scope reads.
inline int constant_scopes(const scope& s) {
  int n = 0;
  for_each_access(s.body, [&](const ir::access& a) { n += std::holds_alternative<scope_ptr>(a.source); });
  return n;
}

/// The number of points a scope sums over, per element.
inline std::int64_t summation_points(const scope& s) {
  std::int64_t n = 1;
  for (auto& i : s.summation) n *= i.extent();
  return n;
}

}  // namespace grad_support
