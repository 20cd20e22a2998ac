// The host emitter: an eOperator as nested C++ loops over host memory, its outer loops shared
// among threads and its innermost one computing several outputs at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/epilogue.hpp"
#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/kernel_schedule.hpp"
#include "ein/codegen/kernel_shape.hpp"
#include "ein/error.hpp"
#include "ein/tune/host_schedule.hpp"

namespace ein::codegen {

/// `inline void eop_<name>_host(reads..., target)`: loops over the traversal box in layout
/// order, the summation loops inside, computing as `accumulate` asks (compute_type,
/// emit_element), under `schedule` (none: tune::host_default, today's fixed schedule). Its first
/// parallel_loops loops are shared among threads, `chunk` iterations at a time where it is set
/// (each thread starts its output offset `o` where its iterations start, so calls from several
/// threads at once share nothing); the innermost traversal loop steps over `lanes` outputs at
/// once, loading the reads along it as vectors where detail::lanes_of finds they may and summing
/// in one accumulator per output; a blocking walks the two innermost loops block by block, each
/// row of a block starting its own output offset.
/// A step that is a library call with an epilogue (a cuda plan's run_host()) applies it after the
/// loops (emit_host_epilogue).
/// @pre `schedule` is a point of shape_of(s, plan)'s host space (tune::host_valid).
/// Example (float matmul, 64×64×64): `EIN_PARALLEL_FOR(1) for (i) { o = 64 * i_i; for (first_i_j
/// += 8) { lanes<float, 8> result; float acc[8] = {}; for (k) { lanes_0 = load_lanes<8>(t_B + 64 *
/// i_k + first_i_j); for (lane) acc[lane] += t_A[64 * i_i + i_k] * lanes_0[lane]; } ...
/// store_lanes<8>(t_C + o, result); o += 8; } }`.
inline void emit_host_function(writer& w, const named_kernel& s, const named_plan& plan, accumulation accumulate,
                               const std::optional<tune::host_schedule>& schedule = std::nullopt) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  w.open("inline void " + s.function + "_host(" + parameters_text(s, plan) + ")");
  if (empty_box(sc.traversal)) {
    w.line("(void)" + out.variable + ";  // an empty box: nothing to compute");
    w.close();
    return;
  }
  const tune::kernel_shape shape = shape_of(s, plan);
  const tune::host_schedule h = schedule ? *schedule : tune::host_default(shape);
  if (!tune::host_valid(shape, h)) throw internal_error("emit_host_function: a schedule outside the host space of " + s.function);
  iterator_box box = make_box(sc);
  const std::int64_t lanes = h.lanes;
  std::vector<ir::access> vectors;
  if (lanes > 1) vectors = detail::lanes_of(s, plan, lanes).second;
  const std::size_t n = sc.traversal.size(), shared = h.parallel_loops;
  const bool blocked = h.block_rows != 0;
  std::vector<std::string> var;
  std::vector<std::int64_t> stride;  // the output's, along each traversal loop
  std::int64_t count = out.count();
  for (std::size_t d = 0; d < n; ++d) {
    var.push_back((lanes > 1 && d + 1 == n ? "first_" : "") + box.variable.at(sc.traversal[d].name));
    stride.push_back(count /= sc.traversal[d].extent());
  }
  // `stride * (v - lo)`: how far an iteration at v of loop d moves the output offset
  const auto moved = [&](std::size_t d, const std::string& v) {
    std::string from = sc.traversal[d].lo == 0 ? v : "(" + v + " - " + int_text(sc.traversal[d].lo) + ")";
    return stride[d] == 1 ? from : int_text(stride[d]) + " * " + from;
  };
  if (shared > 0)
    w.line(h.chunk == 0 ? "EIN_PARALLEL_FOR(" + std::to_string(shared) + ")"
                        : "EIN_PARALLEL_FOR_CHUNK(" + std::to_string(shared) + ", " + int_text(h.chunk) + ")");
  else if (!blocked)
    w.line("std::int64_t o = 0;");
  const auto step_of = [&](std::size_t d) {
    return lanes > 1 && d + 1 == n ? var[d] + " += " + int_text(lanes) : "++" + var[d];
  };
  {
    const writer::nested loops(w);  // the loops over the traversal (a block where there is none)
    // the output offset where an iteration of the shared loops starts (a blocking starts one per row)
    std::string start;
    for (std::size_t d = 0; d < (blocked ? n - 2 : n); ++d) {
      auto& it = sc.traversal[d];
      w.open("for (std::int64_t " + var[d] + " = " + int_text(it.lo) + "; " + var[d] + " < " + int_text(it.hi) + "; " +
             step_of(d) + ")");
      if (blocked || d >= shared) continue;
      start += (start.empty() ? "" : " + ") + moved(d, var[d]);
      if (d + 1 == shared) w.line("std::int64_t o = " + start + ";");
    }
    if (blocked) {
      // block loops over rows r and columns c, then the rows and columns of a block
      const std::size_t r = n - 2, c = n - 1;
      const std::int64_t size[2] = {h.block_rows, h.block_columns};
      for (std::size_t d : {r, c}) {
        auto& it = sc.traversal[d];
        const std::string b = "block_" + var[d];
        w.open("for (std::int64_t " + b + " = " + int_text(it.lo) + "; " + b + " < " + int_text(it.hi) + "; " + b +
               " += " + int_text(size[d - r]) + ")");
      }
      std::string row;
      for (std::size_t d = 0; d < c; ++d) row += moved(d, var[d]) + " + ";
      for (std::size_t d : {r, c}) {
        auto& it = sc.traversal[d];
        const std::string b = "block_" + var[d], end = b + " + " + int_text(size[d - r]);
        w.open("for (std::int64_t " + var[d] + " = " + b + "; " + var[d] + " < (" + end + " < " + int_text(it.hi) +
               " ? " + end + " : " + int_text(it.hi) + "); " + step_of(d) + ")");
        if (d == r) w.line("std::int64_t o = " + row + moved(c, "block_" + var[c]) + ";");
      }
    }
    if (n == 0) w.open("");
    const arithmetic a{compute_type(s, plan, accumulate)};
    if (lanes > 1) {
      const std::string many = int_text(lanes);
      w.line("ein::runtime::lanes<" + element_text(out.type) + ", " + many + "> result;");
      emit_element(w, sc, plan, box, "result", element_text(out.type), a,
                   lane_plan{lanes, sc.traversal.back().name, var.back(), vectors});
      w.line("ein::runtime::store_lanes<" + many + ">(" + out.variable + " + o, result);");
      w.line("o += " + many + ";");
    } else {
      emit_element(w, sc, plan, box, out.variable + "[o++]", element_text(out.type), a);
    }
  }
  emit_host_epilogue(w, s, plan);
  w.close();
}

}  // namespace ein::codegen
