// The arithmetic of generated eOperators: the type a step computes and sums in, how a long sum is
// split into blocks so that float accumulation stays accurate, and the error a plan may show.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ein/codegen/body.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"

namespace ein::codegen {

/// How eOperators compute (the plan says: ein::plan::program_plan::accumulate).
using ein::plan::accumulation;

/// The type step `s` computes and sums in: double where `a` asks for it, where its output is
/// double or where its body reads a double tensor; float otherwise, for 16-bit outputs too.
/// (Nested scopes hold the type of the definition that reads them, float for a 16-bit one:
/// ir::held_type.)
inline ir::dtype compute_type(const named_kernel& s, const named_plan& plan, accumulation a) {
  if (a == accumulation::f64 || plan.buffers[s.target].type == ir::dtype::f64) return ir::dtype::f64;
  for (auto id : s.reads)
    if (plan.buffers[id].type == ir::dtype::f64) return ir::dtype::f64;
  for (auto* a : ir::accesses_read(s.value->body)) {
    auto* t = std::get_if<ir::tensor>(&a->source);
    if (t && t->type == ir::dtype::f64) return ir::dtype::f64;
  }
  return ir::dtype::f32;
}

/// How a float sum is split (blocked summation, Higham, "Accuracy and Stability of Numerical
/// Algorithms" §4.2): the loops from `inner` on add their terms into a partial sum, which the
/// loops before it add into the accumulator; with `chunk` > 0, loop `inner` itself runs in
/// chunks of that length, the chunk loop outside the partial sum. Both levels add about
/// sqrt(n) terms of n, so the rounding error grows as sqrt(n) instead of n.
/// Example: Σ_{r:[0,3), s:[0,3), c:[0,512)} (n = 4608) gives inner = 2, chunk = 64: 72 partial
/// sums of 64 terms.
struct summation_blocks {
  std::size_t inner = 0;
  std::int64_t chunk = 0;
};

/// Sums of up to this many terms accumulate in one variable.
inline constexpr std::int64_t unblocked_terms = 64;

inline std::int64_t terms(const std::vector<ir::iterator>& summation) {
  std::int64_t n = 1;
  for (auto& i : summation) n *= std::max<std::int64_t>(0, i.extent());
  return n;
}

/// The blocks of a sum over `summation` (loops in that order, the last innermost) computed in
/// `type`: none for double or for at most unblocked_terms terms; else the innermost loops
/// whose terms number at most ceil(sqrt(n)), and a chunk of the next loop out where that
/// brings a partial sum closer to sqrt(n) terms.
inline std::optional<summation_blocks> blocks(const std::vector<ir::iterator>& summation, ir::dtype type) {
  std::int64_t n = terms(summation);
  if (type == ir::dtype::f64 || n <= unblocked_terms) return std::nullopt;
  auto target = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::int64_t inner = 1;
  std::size_t k = summation.size();
  while (k > 0 && inner * summation[k - 1].extent() <= target) inner *= summation[--k].extent();
  if (k == 0) throw internal_error("blocks: a sum of n > 1 terms fits in sqrt(n)");
  std::int64_t extent = summation[k - 1].extent(), want = (target + inner - 1) / inner;
  if (want < 2) return summation_blocks{k, 0};
  std::int64_t pieces = (extent + want - 1) / want;
  return summation_blocks{k - 1, (extent + pieces - 1) / pieces};
}

/// The error a step storing 16-bit type `t` adds, relative to its output's largest magnitude,
/// when it sums `n` terms (1 for none) in float: one unit in the last place of `t` at that
/// magnitude (epsilon: 2^-10 for half, 2^-7 for bfloat16), since the plan's float result and the
/// interpreter's double one may round to neighbours, plus the float sum's own bound, 1e-5 up to
/// 10^4 terms, growing as sqrt(n) past them as blocked sums do (docs/decisions/0028).
/// Example: a half convolution summing 3·3·64 terms adds 2^-10 + 1e-5.
inline double sixteen_bit_error(ir::dtype t, std::int64_t n) {
  const double epsilon = t == ir::dtype::f16 ? 0x1p-10 : 0x1p-7;
  return epsilon + 1e-5 * std::max(1.0, std::sqrt(static_cast<double>(n)) / 100.0);
}

/// The largest error, relative to an output's largest magnitude, that an output of `plan` may
/// show against the double interpreter on random inputs, when step k computes in `types[k]`
/// (an eOperator's compute_type; a library call's element type), `library[k]` says whether it
/// is a library call and `tf32` whether float library calls may round their operands to TF32.
/// Each step adds its own bound to the largest of the buffers it reads: 1e-5 for float
/// arithmetic (blocked sums of up to 10^4 terms stay well within it), 1e-2 for TF32 (a 10-bit
/// mantissa), 1e-6 for double arithmetic stored as float (one rounding), 1e-12 for double;
/// nothing for a copy (a relayout that reads and writes one type). A step storing a 16-bit type
/// adds sixteen_bit_error instead, and once more for each term a call's epilogue adds.
inline double tolerance(const named_plan& plan, const std::vector<ir::dtype>& types, const std::vector<bool>& library,
                        bool tf32) {
  std::vector<double> error(plan.buffers.size(), 0.0);
  double worst = 0;
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    const buffer& out = plan.buffers[s.target];
    double in = 0;
    bool same_type = true;
    for (auto id : s.reads) {
      in = std::max(in, error[id]);
      same_type = same_type && plan.buffers[id].type == out.type;
    }
    auto* read = s.value->body ? std::get_if<ir::access>(&*s.value->body) : nullptr;
    bool copies = s.value->summation.empty() && read && same_type;
    // A 16-bit call ending in its epilogue rounds once where the program as written rounds the
    // call's result and then the epilogue's sum, and cuDNN's plain calls (where its fused call
    // takes no algorithm) after each term they add: one more unit per term added (ReLU of a
    // rounded value rounds nothing).
    int added = 0;
    if (s.call && s.call->epilogue) added = s.call->epilogue->bias.has_value() + s.call->epilogue->residual.has_value();
    double own = copies                              ? 0.0
                 : ir::is_16bit(out.type)             ? sixteen_bit_error(out.type, terms(s.value->summation)) +
                                                            added * sixteen_bit_error(out.type, 1)
                 : types[k] == ir::dtype::f32         ? (library[k] && tf32 ? 1e-2 : 1e-5)
                 : out.type == ir::dtype::f32         ? 1e-6
                                                      : 1e-12;
    error[s.target] = in + own;
    if (out.role == buffer::kind::output) worst = std::max(worst, error[s.target]);
  }
  return worst;
}

}  // namespace ein::codegen
