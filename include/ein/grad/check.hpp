// A gradient program checked against central finite differences of its forward program, in
// double, on random inputs and seeds, away from the points where a function has a kink.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// How a gradient is checked: central differences of step `step` along each direction; a
/// tensor of at most `every_element` elements along each element, a larger one along `dense`
/// random directions and `elements` random elements.
struct check_options {
  double step = 1e-6;
  double tolerance = 1e-5;  // |analytic − difference| / max(scale, floor), scale = Σ|gradient·direction|
  double floor = 1e-2;      // below it, errors are absolute: a difference's rounding is ~1e-10·|L|
  std::int64_t every_element = 32;
  int dense = 2, elements = 4;
};

/// What a check found.
struct check_result {
  std::size_t directions = 0, kinks = 0;  // directions compared, and left out at a kink
  double error = 0;                       // the largest relative error compared
  std::string failure;                    // empty when every comparison held
  bool ok() const { return failure.empty(); }
};

namespace detail {

// L = Σ_y Σ_i seed_y[i] · y[i] with tensor `at` moved by `by` (along `direction`) where it is
// bound or computed.
inline double loss(const ir::program& p, eval::bindings env, const eval::bindings& seeds, const std::string& at,
                   const std::vector<double>& direction, double by) {
  auto move = [&](const std::string& n) {
    if (n != at || by == 0) return;
    auto& v = env.at(n).data;
    for (std::size_t k = 0; k < v.size(); ++k) v[k] += by * direction[k];
  };
  for (auto& t : p.tensors) move(t.name);
  for (auto& d : p.definitions) {
    env[d.name] = eval::evaluate(*d.value, env);
    move(d.name);
  }
  double l = 0;
  for (auto& y : p.outputs) {
    auto& value = env.at(y).data;
    auto& seed = seeds.at(gradient_name(y)).data;
    for (std::size_t k = 0; k < value.size(); ++k) l += seed[k] * value[k];
  }
  return l;
}

}  // namespace detail

/// Checks `g` (gradient(forward, targets)) on inputs and seeds drawn from `seed` (uniform in
/// [−1, 1), never 0): for each target X and direction v, Σ X_grad·v against
/// (L(X + h·v) − L(X − h·v)) / 2h, L = Σ_y seed_y · y, within `tolerance` relative to
/// max(scale, `floor`). A direction along which the one-sided differences (L(X + h·v) − L(X)) / h
/// and (L(X) − L(X − h·v)) / h differ by more than that much crosses a kink of relu, a max or a
/// min within h (or bends more than the step resolves) and is left out, counted in `kinks`: a
/// kink too close to h to show there moves the central difference by at most half their
/// difference, so every direction compared is within the tolerance of an exact gradient. Forward
/// values that are not finite (a max over no point) leave the whole check out.
inline check_result check_gradient(const ir::program& forward, const gradient_program& g,
                                   const std::vector<std::string>& targets, std::uint64_t seed,
                                   const check_options& o = {}) {
  check_result r;
  eval::random_stream rng(seed);
  eval::bindings inputs;
  for (auto& t : forward.tensors) inputs[t.name] = eval::random_dense(t.shape, rng);
  eval::bindings seeds, all = inputs;
  for (auto& t : g.program.tensors)
    if (!inputs.count(t.name)) seeds[t.name] = all[t.name] = eval::random_dense(t.shape, rng);
  auto values = eval::evaluate(g.program, all);
  for (auto& y : forward.outputs)
    for (double v : values.at(y).data)
      if (!std::isfinite(v)) return r;
  const ir::program p = normalize(forward);
  for (auto& x : targets) {
    const auto& grad = values.at(gradient_name(x)).data;
    std::vector<std::vector<double>> directions;
    const std::size_t n = grad.size();
    auto unit = [&](std::size_t k) {
      std::vector<double> v(n, 0.0);
      v[k] = 1;
      return v;
    };
    if (static_cast<std::int64_t>(n) <= o.every_element) {
      for (std::size_t k = 0; k < n; ++k) directions.push_back(unit(k));
    } else {
      for (int k = 0; k < o.dense; ++k) directions.push_back(eval::random_dense({static_cast<std::int64_t>(n)}, rng).data);
      for (int k = 0; k < o.elements; ++k)
        directions.push_back(unit(static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(n) - 1))));
    }
    for (auto& v : directions) {
      double analytic = 0, scale = 0;
      for (std::size_t k = 0; k < n; ++k) analytic += grad[k] * v[k], scale += std::abs(grad[k] * v[k]);
      const double h = o.step;
      double up = detail::loss(p, inputs, seeds, x, v, h), down = detail::loss(p, inputs, seeds, x, v, -h),
             mid = detail::loss(p, inputs, seeds, x, v, 0);
      const double allowed = o.tolerance * std::max(scale, o.floor);
      if (std::abs((up - mid) / h - (mid - down) / h) > allowed) {
        ++r.kinks;
        continue;
      }
      double difference = (up - down) / (2 * h);
      double error = std::abs(analytic - difference) / std::max(scale, o.floor);
      ++r.directions;
      r.error = std::max(r.error, error);
      if (!(error <= o.tolerance) && r.failure.empty())
        r.failure = "gradient of `" + x + "`: " + std::to_string(analytic) + " along a direction, central difference " +
                    std::to_string(difference) + " (relative error " + std::to_string(error) + ")";
    }
  }
  return r;
}

}  // namespace ein::grad
