// The CUDA emitter: an eOperator as one kernel, flat (a grid-stride loop over the outputs, a few
// per thread and pass) or tiled (a read staged through shared memory), as its schedule says.
#pragma once

#include <optional>
#include <string>

#include "ein/codegen/eoperator.hpp"
#include "ein/codegen/kernel_schedule.hpp"
#include "ein/codegen/kernel_shape.hpp"
#include "ein/error.hpp"
#include "ein/tune/cuda_schedule.hpp"

namespace ein::codegen {

namespace detail {

// `const <index> i_<name> = ...;` for each traversal iterator but those in `skip`, from the
// unsigned `rest` (the flattened position), innermost first; `rest` is consumed. With `lanes` >
// 1 the innermost iterator advances by that many per position, into `first_i_<name>` (its first
// lane).
inline void emit_decomposition(writer& w, const std::vector<ir::iterator>& traversal, const iterator_box& box,
                               const std::string& index, const std::string& rest, const std::vector<std::size_t>& skip,
                               std::int64_t lanes = 1) {
  std::vector<std::size_t> order;
  for (std::size_t d = traversal.size(); d-- > 0;)
    if (std::find(skip.begin(), skip.end(), d) == skip.end()) order.push_back(d);
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& it = traversal[order[k]];
    const bool first = lanes > 1 && order[k] + 1 == traversal.size();
    std::string v = (first ? "first_" : "") + box.variable.at(it.name), lo = it.lo ? " + " + int_text(it.lo) : "";
    std::string extent = int_text(it.extent() / (first ? lanes : 1)) + "u", step = first ? " * " + int_text(lanes) : "";
    if (it.extent() == 1) {
      w.line("[[maybe_unused]] const " + index + " " + v + " = " + int_text(it.lo) + ";");
    } else if (k + 1 == order.size()) {
      w.line("[[maybe_unused]] const " + index + " " + v + " = static_cast<" + index + ">(" + rest + ")" + step + lo + ";");
    } else {
      w.line("[[maybe_unused]] const " + index + " " + v + " = static_cast<" + index + ">(" + rest + " % " + extent + ")" +
             step + lo + ";");
      w.line(rest + " /= " + extent + ";");
    }
  }
}

inline std::string unsigned_of(const std::string& index) { return index == "int" ? "unsigned" : "std::uint64_t"; }

// The flattened position of the traversal point in scope within the output buffer.
inline std::string output_offset(const ir::scope& sc, const buffer& out, const iterator_box& box) {
  std::vector<ir::affine> at;
  for (auto& it : sc.traversal) at.push_back(ir::affine::iter(it.name));
  return index_text(offset(at, out.lower, out.shape), box);
}

// The flat kernel's body: a grid-stride loop whose passes give each thread k.unroll items,
// k.threads apart, each computed by emit_element (k.lanes outputs, stored together).
inline void emit_flat_body(writer& w, const named_kernel& s, const named_plan& plan, const kernel_schedule& k,
                           const arithmetic& math) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  iterator_box box = make_box(sc);
  const std::string& ix = k.index;
  const std::string per_pass = int_text(k.items_per_block), total = int_text(k.items);
  const std::string first = "static_cast<" + ix + ">(blockIdx.x) * " + per_pass + " + static_cast<" + ix + ">(threadIdx.x)";
  const std::string step_size = "static_cast<" + ix + ">(gridDim.x) * " + per_pass;
  std::string o = "o";
  if (k.unroll > 1) {
    w.open("for (" + ix + " base = " + first + "; base < " + total + "; base += " + step_size + ")");
    w.line("EIN_UNROLL");
    w.open("for (" + ix + " u = 0; u < " + int_text(k.unroll) + "; ++u)");
    w.line("const " + ix + " o = base + " + int_text(k.threads) + " * u;");
    w.open("if (o < " + total + ")");
  } else {
    w.open("for (" + ix + " o = " + first + "; o < " + total + "; o += " + step_size + ")");
  }
  w.line("[[maybe_unused]] " + unsigned_of(ix) + " rest = static_cast<" + unsigned_of(ix) + ">(o);");
  emit_decomposition(w, sc.traversal, box, ix, "rest", {}, k.lanes);
  if (k.lanes == 1) {
    emit_element(w, sc, plan, box, out.variable + "[o]", element_text(out.type), math);
  } else {
    const ir::iterator& x = sc.traversal.back();
    const std::string count = int_text(k.lanes), type = element_text(out.type);
    w.line("ein::runtime::lanes<" + type + ", " + count + "> result;");
    emit_element(w, sc, plan, box, "result", type, math,
                 lane_plan{k.lanes, x.name, "first_" + box.variable.at(x.name), k.vectors});
    w.line("ein::runtime::store_lanes<" + count + ">(" + out.variable + " + " + count + " * o, result);");
  }
  if (k.unroll > 1) {
    w.close();
    w.close();
  }
  w.close();
}

// The tiled kernel's body: per tile, the other traversal iterators and the tile's corner; per
// summation point (unrolled), the block loads the staged read's tile values (y fastest), waits,
// then each thread accumulates its rows' outputs (x fastest) and the block waits again; last,
// each thread stores its outputs.
inline void emit_tiled_body(writer& w, const named_kernel& s, const named_plan& plan, const kernel_schedule& k,
                            const arithmetic& math) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  const tile_plan& t = *k.tile;
  iterator_box box = make_box(sc);
  const std::string& ix = k.index;
  const std::string type = ir::name(math.compute), rows = int_text(t.rows), columns = int_text(tile_columns);
  const std::string per_thread = int_text(t.rows * tile_columns / k.threads);
  const std::string threads_per_row = int_text(k.threads / tile_columns);
  const ir::iterator &xi = sc.traversal[t.x], &yi = sc.traversal[t.y];
  const std::string xv = box.variable.at(xi.name), yv = box.variable.at(yi.name);
  const bool sum = !sc.summation.empty();
  w.comment("the tile's values of the staged read, [x][y], each row padded against bank conflicts");
  w.line("__shared__ " + type + " tile[" + columns + "][" + int_text(t.rows + 1) + "];");
  w.open("for (" + ix + " tile_index = static_cast<" + ix + ">(blockIdx.x); tile_index < " + int_text(k.items) +
         "; tile_index += static_cast<" + ix + ">(gridDim.x))");
  w.line("[[maybe_unused]] " + unsigned_of(ix) + " rest = static_cast<" + unsigned_of(ix) + ">(tile_index);");
  // The tile's corner: its column of tiles along x, then its row along y.
  auto corner = [&](const std::string& name, std::int64_t tiles, const std::string& size, std::int64_t lo) {
    if (tiles == 1) {
      w.line("const " + ix + " " + name + " = " + int_text(lo) + ";");
      return;
    }
    w.line("const " + ix + " " + name + " = static_cast<" + ix + ">(rest % " + int_text(tiles) + "u) * " + size + " + " +
           int_text(lo) + ";");
    w.line("rest /= " + int_text(tiles) + "u;");
  };
  corner("tile_x", t.columns_of_tiles(sc), columns, xi.lo);
  corner("tile_y", t.rows_of_tiles(sc), rows, yi.lo);
  emit_decomposition(w, sc.traversal, box, ix, "rest", {t.x, t.y});
  const std::string thread = "static_cast<" + ix + ">(threadIdx.x)";
  // This thread's outputs: column threadIdx.x % 32, rows threadIdx.x / 32 + (threads / 32) r.
  auto own_point = [&] {
    w.line("const " + ix + " " + xv + " = tile_x + " + thread + " % " + columns + ";");
    w.line("const " + ix + " " + yv + " = tile_y + " + thread + " / " + columns + " + " + threads_per_row + " * r;");
  };
  const std::string inside = xv + " < " + int_text(xi.hi) + " && " + yv + " < " + int_text(yi.hi);
  const std::string staged_value = "tile[" + xv + " - tile_x][" + yv + " - tile_y]";
  const std::vector<staged_read> staged{{t.read, staged_value}};
  std::string body = body_text(sc.body, plan, box, math.compute, &staged);
  if (sum) w.line(type + " acc[" + per_thread + "] = {};");
  {
    const writer::nested loops(w);  // the summation loops (none without a sum)
    for (auto& it : sc.summation) {
      auto& v = box.variable.at(it.name);
      w.line("EIN_UNROLL");
      w.open("for (" + ix + " " + v + " = " + int_text(it.lo) + "; " + v + " < " + int_text(it.hi) + "; ++" + v + ")");
    }
    w.open("for (" + ix + " e = " + thread + "; e < " + int_text(t.rows * tile_columns) + "; e += " +
           int_text(k.threads) + ")");
    w.line("const " + ix + " " + yv + " = tile_y + e % " + rows + ", " + xv + " = tile_x + e / " + rows + ";");
    w.line("if (" + inside + ") " + staged_value + " = " + access_text(t.read, plan, box, math.compute) + ";");
    w.close();
    w.line("__syncthreads();");
    if (sum) {
      w.line("EIN_UNROLL");
      w.open("for (int r = 0; r < " + per_thread + "; ++r)");
      own_point();
      w.line("if (" + inside + ") acc[r] += " + body + ";");
      w.close();
      w.line("__syncthreads();");
    }
  }
  w.line("EIN_UNROLL");
  w.open("for (int r = 0; r < " + per_thread + "; ++r)");
  own_point();
  w.line("if (" + inside + ") " + out.variable + "[" + output_offset(sc, out, box) + "] = static_cast<" +
         element_text(out.type) + ">(" + (sum ? std::string("acc[r]") : body) + ");");
  w.close();
  // The next tile overwrites this one.
  if (!sum) w.line("__syncthreads();");
  w.close();
}

}  // namespace detail

/// The point of step `s`'s CUDA space its kernel runs under: `point`, or today's fixed one
/// (tune::cuda_default). Throws internal_error for a point outside the space (tune::cuda_valid).
inline tune::cuda_schedule cuda_point(const named_kernel& s, const named_plan& plan, const std::optional<tune::cuda_schedule>& point) {
  const tune::kernel_shape shape = shape_of(s, plan);
  if (!point) return tune::cuda_default(shape);
  if (!tune::cuda_valid(shape, *point)) throw internal_error("cuda_point: a schedule outside the CUDA space of " + s.function);
  return *point;
}

/// `static __global__ void __launch_bounds__(<threads>) eop_<name>_kernel(reads..., target)`: the
/// step computed as `accumulate` asks, mapped as schedule(s, plan, point) says (flat or tiled),
/// under `point` (none: today's fixed one, cuda_point). Its launch is emit_cuda_launch's, under
/// the same point.
inline void emit_cuda_kernel(writer& w, const named_kernel& s, const named_plan& plan, accumulation accumulate,
                             const std::optional<tune::cuda_schedule>& point = std::nullopt) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  if (empty_box(sc.traversal)) {
    w.open("static __global__ void __launch_bounds__(" + int_text(kernel_threads) + ") " + s.function + "_kernel(" +
           parameters_text(s, plan) + ")");
    w.line("(void)" + out.variable + ";  // an empty box: nothing to compute");
    w.close();
    return;
  }
  kernel_schedule k = schedule(s, plan, cuda_point(s, plan, point));
  w.open("static __global__ void __launch_bounds__(" + int_text(k.threads) + ") " + s.function + "_kernel(" +
         parameters_text(s, plan) + ")");
  arithmetic math{compute_type(s, plan, accumulate), k.index};
  if (k.tile)
    detail::emit_tiled_body(w, s, plan, k, math);
  else
    detail::emit_flat_body(w, s, plan, k, math);
  w.close();
}

/// The name of the function giving the blocks of a step's kernel that the device keeps resident
/// (emit_resident_blocks).
inline std::string resident_function(const named_kernel& s) { return s.function + "_resident"; }

/// `static unsigned <function>_resident()`: the device's multiprocessors times the occupancy of the
/// step's kernel at its point's threads per block (cuda_point), asked once
/// (runtime::resident_blocks). The plan's prepare() asks it, so that no run asks it under stream
/// capture. Nothing for an empty box.
inline void emit_resident_blocks(writer& w, const named_kernel& s, const named_plan& plan,
                                 const std::optional<tune::cuda_schedule>& point = std::nullopt) {
  if (empty_box(s.value->traversal)) return;
  w.open("static unsigned " + resident_function(s) + "()");
  w.line("static const unsigned resident = ein::runtime::resident_blocks(" + s.function + "_kernel, " +
         int_text(cuda_point(s, plan, point).threads) + ");");
  w.line("return resident;");
  w.close();
}

/// The launch of a step's kernel on stream `s`, checked: its point's threads per block
/// (cuda_point), blocks for the schedule's items up to what the device keeps resident at once
/// (emit_resident_blocks).
inline void emit_cuda_launch(writer& w, const named_kernel& s, const named_plan& plan, const std::string& ns,
                             const std::optional<tune::cuda_schedule>& point = std::nullopt) {
  if (empty_box(s.value->traversal)) return;
  kernel_schedule k = schedule(s, plan, cuda_point(s, plan, point));
  w.line(ns + "::" + s.function + "_kernel<<<ein::runtime::launch_blocks(" + int_text(k.items) + ", " +
         int_text(k.items_per_block) + ", " + ns + "::" + resident_function(s) + "()), " + int_text(k.threads) +
         ", 0, s>>>(" + arguments_text(s, plan) + ");");
  w.line("EIN_CUDA_CHECK(cudaGetLastError());");
}

}  // namespace ein::codegen
