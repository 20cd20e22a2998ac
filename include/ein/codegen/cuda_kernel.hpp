// The CUDA emitter: an eOperator as one kernel with one thread per output element.
#pragma once

#include <string>

#include "ein/codegen/eoperator.hpp"

namespace ein::codegen {

/// `static __global__ void eop_<name>_kernel(reads..., target)`: a grid-stride loop over the
/// flattened output; the innermost traversal iterator varies fastest between neighbouring
/// threads, so writes (and reads indexed by it with coefficient 1) are coalesced.
inline void emit_cuda_kernel(writer& w, const step& s, const layout& plan) {
  const ir::scope& sc = *s.value;
  const buffer& out = plan.buffers[s.target];
  w.open("static __global__ void " + s.function + "_kernel(" + parameters_text(s, plan) + ")");
  if (empty_box(sc.traversal)) {
    w.line("(void)" + out.variable + ";  // an empty box: nothing to compute");
    w.close();
    return;
  }
  iterator_box box = make_box(sc);
  w.line("const std::int64_t total = " + int_text(out.count()) + ";");
  w.line("const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;");
  w.open("for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; "
         "o < total; o += stride)");
  w.line("[[maybe_unused]] std::int64_t rest = o;");
  for (std::size_t d = sc.traversal.size(); d-- > 0;) {
    auto& it = sc.traversal[d];
    std::string v = box.variable.at(it.name), lo = it.lo ? " + " + int_text(it.lo) : "";
    if (it.extent() == 1) {
      w.line("[[maybe_unused]] const std::int64_t " + v + " = " + int_text(it.lo) + ";");
    } else if (d == 0) {
      w.line("[[maybe_unused]] const std::int64_t " + v + " = rest" + lo + ";");
    } else {
      w.line("[[maybe_unused]] const std::int64_t " + v + " = rest % " + int_text(it.extent()) + lo + ";");
      w.line("rest /= " + int_text(it.extent()) + ";");
    }
  }
  emit_element(w, sc, plan, box, out.variable + "[o]", element_text(out.type));
  w.close();
  w.close();
}

/// The launch of a step's kernel on stream `s`, checked.
inline void emit_cuda_launch(writer& w, const step& s, const layout& plan, const std::string& ns) {
  const buffer& out = plan.buffers[s.target];
  if (empty_box(s.value->traversal)) return;
  w.line(ns + "::" + s.function + "_kernel<<<ein::runtime::grid_size(" + int_text(out.count()) +
         "), ein::runtime::block_size, 0, s>>>(" + arguments_text(s, plan) + ");");
  w.line("EIN_CUDA_CHECK(cudaGetLastError());");
}

}  // namespace ein::codegen
