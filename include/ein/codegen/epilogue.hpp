// A library call's epilogue as host code: the loop that applies it to the call's result in place,
// after the call (or after the loops that stand for the call in a cuda plan's run_host()).
#pragma once

#include <string>

#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/library/common.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/plan/epilogue.hpp"

namespace ein::codegen {

/// In step `s`'s host function, after its result is in the target: the step's epilogue, if it
/// has one, over the target's elements on every core (in float for 16-bit buffers, rounded once as
/// it is stored).
/// Example (bias along the last of 64 columns, ReLU): `EIN_PARALLEL_FOR(1) for (std::int64_t f =
/// 0; f < 4096; ++f) t_y[f] = ein::runtime::fn::relu(t_y[f] + t_b[f % 64]);`.
inline void emit_host_epilogue(writer& w, const named_kernel& s, const named_plan& plan) {
  if (!s.call || !s.call->epilogue) return;
  const ein::plan::epilogue& e = *s.call->epilogue;
  const buffer& out = plan.buffers[s.target];
  const auto form = ein::plan::epilogue_form::of(e, out.shape);
  std::string value = out.variable + "[f]";
  if (e.bias) {
    const std::string at = form.bias_step == 1 ? "f" : "f / " + int_text(form.bias_step);
    value += " + " + plan.buffers[*e.bias].variable + "[" + at + " % " + int_text(form.bias_extent) + "]";
  }
  if (e.residual) value += " + " + plan.buffers[*e.residual].variable + "[f]";
  if (e.relu) value = "ein::runtime::fn::relu(" + value + ")";
  // 16-bit terms add in float; the sum rounds to the target's type as it is stored
  if (ir::is_16bit(out.type)) value = ein::runtime::name(library::runtime_type(out.type)) + std::string("(") + value + ")";
  w.comment(ein::plan::describe(e, e.bias ? plan.buffers[*e.bias].name : "", e.residual ? plan.buffers[*e.residual].name : "")
                .substr(1));
  w.line("EIN_PARALLEL_FOR(1)");
  w.line("for (std::int64_t f = 0; f < " + int_text(out.count()) + "; ++f) " + out.variable + "[f] = " + value + ";");
}

}  // namespace ein::codegen
