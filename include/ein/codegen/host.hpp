// The host emitter: an eOperator as nested C++ loops over host memory, its outer loops shared
// among threads and its innermost one computing several outputs at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ein/codegen/epilogue.hpp"
#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/kernel_schedule.hpp"

namespace ein::codegen {

/// Outputs a host eOperator computes together along its innermost traversal iterator (halved
/// until they divide its extent; detail::lanes_of): 8 floats are one AVX register, and 8
/// accumulators hide the latency of the additions.
inline constexpr std::int64_t host_lanes = 8;

/// A host eOperator runs on the threads of an OpenMP team (EIN_PARALLEL_FOR) from this many
/// multiply-adds on: below, starting the team costs more than it saves.
inline constexpr std::int64_t parallel_work = std::int64_t{1} << 15;

/// The outer loops of a parallel host eOperator are collapsed until they hold this many
/// iterations, so that a batch of 1 still feeds every core.
inline constexpr std::int64_t parallel_iterations = 64;

namespace detail {

/// How many outer traversal loops of `sc` its threads share (EIN_PARALLEL_FOR's collapse): 0 below
/// parallel_work, else the fewest that hold parallel_iterations, never the innermost of two or more.
inline std::size_t shared_loops(const ir::scope& sc) {
  const std::size_t n = sc.traversal.size();
  std::int64_t work = terms(sc.summation);
  for (auto& it : sc.traversal) work *= it.extent();
  if (n == 0 || work < parallel_work) return 0;
  std::size_t k = 0;
  for (std::int64_t iterations = 1; k < (n == 1 ? 1 : n - 1) && iterations < parallel_iterations;)
    iterations *= sc.traversal[k++].extent();
  return k;
}

}  // namespace detail

/// `inline void eop_<name>_host(reads..., target)`: loops over the traversal box in layout
/// order, the summation loops inside, computing as `accumulate` asks (compute_type,
/// emit_element). The outer loops are shared among threads (detail::shared_loops; each thread
/// starts its output offset `o` where its iterations start, so calls from several threads at once
/// share nothing), and the innermost traversal loop steps over host_lanes outputs at once where
/// detail::lanes_of finds they pay, loading the reads along it as vectors and summing in one
/// accumulator per output.
/// A step that is a library call with an epilogue (a cuda plan's run_host()) applies it after the
/// loops (emit_host_epilogue).
/// Example (float matmul, 64×64×64): `EIN_PARALLEL_FOR(1) for (i) { o = 64 * i_i; for (first_i_j
/// += 8) { lanes<float, 8> result; float acc[8] = {}; for (k) { lanes_0 = load_lanes<8>(t_B + 64 *
/// i_k + first_i_j); for (lane) acc[lane] += t_A[64 * i_i + i_k] * lanes_0[lane]; } ...
/// store_lanes<8>(t_C + o, result); o += 8; } }`.
inline void emit_host_function(writer& w, const step& s, const layout& plan, accumulation accumulate) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  if (empty_box(sc.traversal)) {
    w.line("(void)" + out.variable + ";  // an empty box: nothing to compute");
    w.close();
    return;
  }
  iterator_box box = make_box(sc);
  const auto [lanes, vectors] = detail::lanes_of(s, plan, host_lanes);
  const std::size_t n = sc.traversal.size(), shared = detail::shared_loops(sc);
  std::vector<std::string> var;
  for (std::size_t d = 0; d < n; ++d)
    var.push_back((lanes > 1 && d + 1 == n ? "first_" : "") + box.variable.at(sc.traversal[d].name));
  if (shared == 0)
    w.line("std::int64_t o = 0;");
  else
    w.line("EIN_PARALLEL_FOR(" + std::to_string(shared) + ")");
  std::string start;  // the output offset where an iteration of the shared loops starts
  std::int64_t stride = out.count();
  for (std::size_t d = 0; d < n; ++d) {
    auto& it = sc.traversal[d];
    const bool last = d + 1 == n;
    w.open("for (std::int64_t " + var[d] + " = " + int_text(it.lo) + "; " + var[d] + " < " + int_text(it.hi) + "; " +
           (lanes > 1 && last ? var[d] + " += " + int_text(lanes) : "++" + var[d]) + ")");
    stride /= it.extent();
    if (d < shared) {
      std::string from = it.lo == 0 ? var[d] : "(" + var[d] + " - " + int_text(it.lo) + ")";
      start += (start.empty() ? "" : " + ") + (stride == 1 ? from : int_text(stride) + " * " + from);
    }
    if (shared > 0 && d + 1 == shared) w.line("std::int64_t o = " + start + ";");
  }
  if (n == 0) w.open("");
  const arithmetic a{compute_type(s, plan, accumulate)};
  if (lanes > 1) {
    const std::string count = int_text(lanes);
    w.line("ein::runtime::lanes<" + element_text(out.type) + ", " + count + "> result;");
    emit_element(w, sc, plan, box, "result", element_text(out.type), a,
                 lane_plan{lanes, sc.traversal.back().name, var.back(), vectors});
    w.line("ein::runtime::store_lanes<" + count + ">(" + out.variable + " + o, result);");
    w.line("o += " + count + ";");
  } else {
    emit_element(w, sc, plan, box, out.variable + "[o++]", element_text(out.type), a);
  }
  for (std::size_t k = 0; k < std::max<std::size_t>(n, 1); ++k) w.close();
  emit_host_epilogue(w, s, plan);
  w.close();
}

}  // namespace ein::codegen
