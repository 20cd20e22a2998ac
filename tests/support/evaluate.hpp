// A plan run by the reference interpreter, kernel by kernel: what its generated code must compute,
// for tests that check a plan's steps rather than its program.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ein/eval/interpret.hpp"
#include "ein/plan/epilogue.hpp"
#include "ein/plan/plan.hpp"

namespace ein::plan {

/// Applies epilogue `e` of a kernel of `p` to `result`, the value the kernel's call computes
/// (over its target's box), reading the bias and the residual from `values` by buffer name.
inline void apply_epilogue(eval::dense& result, const epilogue& e, const program_plan& p, const eval::bindings& values) {
  const auto form = epilogue_form::of(e, result.shape);
  const eval::dense* bias = e.bias ? &values.at(p.buffers[*e.bias].name) : nullptr;
  const eval::dense* residual = e.residual ? &values.at(p.buffers[*e.residual].name) : nullptr;
  for (std::size_t f = 0; f < result.data.size(); ++f) {
    double v = result.data[f];
    if (bias) v += bias->data[static_cast<std::size_t>(static_cast<std::int64_t>(f) / form.bias_step % form.bias_extent)];
    if (residual) v += residual->data[f];
    result.data[f] = e.relu && v < 0 ? 0.0 : v;
  }
}

/// Every buffer of `p` computed from `values` (its inputs and weights, by name): each kernel in
/// order, its value by the interpreter, then its call's epilogue.
inline eval::bindings evaluate(const program_plan& p, eval::bindings values) {
  for (auto& k : p.kernels) {
    auto value = eval::evaluate(*k.value, values);
    if (k.call && k.call->epilogue) apply_epilogue(value, *k.call->epilogue, p, values);
    values[p.buffers[k.target].name] = std::move(value);
  }
  return values;
}

}  // namespace ein::plan
