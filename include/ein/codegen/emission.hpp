// What the emitters of one plan share: its layout, its preparation and its description, made
// once and handed to emit_header, emit_cuda_source, report and the driver's listing.
#pragma once

#include <string>
#include <utility>

#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/options.hpp"
#include "ein/codegen/preparation.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/plan.hpp"

namespace ein::codegen {

/// The plan of `layout` in words, one line per step, e.g.
/// `conv = eOperator L_{n:[0,1), ...} Σ_{...} A[n, h + r - 1, w + s - 1, c] * K[r, s, f, c]` or
/// `xw = library matmul(A=x+0, B=W+0) batch=1 m=64 n=128 k=256 ...`. Weight transforms (steps
/// that read weights only; run() computes them first, prepare() once) are marked
/// `[weight transform]`, and a step storing another type than float names it (`[bfloat16]`).
inline std::string describe(const named_plan& plan, const options& o) {
  auto calls = emitted_calls(plan, o.target);
  std::string r = "plan " + o.name + " of " + o.object + " (backend " + name(o.target) +
                  ", search: " + o.search + ")\n";
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    const buffer& b = plan.buffers[s.target];
    r += "  " + b.name + " = " + (calls[k] ? calls[k]->str(plan.buffers) : "eOperator " + ir::to_string(*s.value)) +
         (b.role == buffer::kind::output ? "  [output]" : "  [temporary]") +
         (s.weight_only ? " [weight transform]" : "") +
         (b.type != ir::dtype::f32 ? " [" + std::string(ir::name(b.type)) + "]" : std::string()) + "\n";
  }
  return r;
}

/// The plan `p` as its emitters take it: the plan, its layout (make_named_plan), its preparation
/// (make_preparation) and its description under `o` (describe), each computed once.
struct emission {
  ein::plan::program_plan plan;
  named_plan steps;
  preparation prep;
  std::string description;
};

/// The emission of `p` under `o` (its description names `o.name`, `o.object`, `o.target` and
/// `o.search`, so those are set first).
inline emission make_emission(ein::plan::program_plan p, const options& o) {
  emission e{std::move(p), {}, {}, {}};
  e.steps = make_named_plan(e.plan);
  e.prep = make_preparation(e.steps);
  e.description = describe(e.steps, o);
  return e;
}

/// The plan `p` in words (describe of its layout).
inline std::string describe(const ein::plan::program_plan& p, const options& o) { return describe(make_named_plan(p), o); }

}  // namespace ein::codegen
