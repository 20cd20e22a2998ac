// The bodies of a plan's entry points (run(), run_host(), prepare(), run_prepared()): binding
// checks, bound pointers, storage and temporaries, and one call per step, host or CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/preparation.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/plan/memory.hpp"
#include "ein/tune/cuda_schedule.hpp"

namespace ein::codegen {

namespace detail {

// A program key as a C++ literal: its text and ULL.
inline std::string key_literal(std::uint64_t key) { return ir::program_key_text(key) + "ULL"; }

// A C++ string literal holding `s` (UTF-8 passes through; quotes, backslashes, newlines escape).
inline std::string string_literal(const std::string& s) {
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') r += '\\', r += ch;
    else if (ch == '\n') r += "\\n";
    else r += ch;
  }
  return r + "\"";
}

inline std::string shape_list(const std::vector<std::int64_t>& shape) {
  std::string r = "{";
  for (std::size_t i = 0; i < shape.size(); ++i) r += (i ? ", " : "") + int_text(shape[i]);
  return r + "}";
}

// Which steps a generated body runs: all of them (run, run_host), the weight transforms of a
// prepared plan (prepare), or the other steps, reading the prepared storage (run_prepared).
enum class part : std::uint8_t { whole, weights, rest };

// The body of run()/run_host(), prepare() or run_prepared(): check the bindings, take the bound
// pointers, point into the storage, take temporaries, call each step of `which`. Library steps
// call the plan's cuBLAS handle `ein_cublas` (on TF32 tensor cores where `tf32` says so) or cuDNN
// handle `ein_cudnn` (cuda), or their CBLAS or oneDNN host function; prepare() makes the states of
// oneDNN steps whose filter it has (preparation::state), which run_prepared() calls.
// Kernels launch under `schedules[k]` for step k where one is given (cuda_point).
inline void emit_body(writer& w, const layout& plan, const preparation& prep, part which,
                      const std::string& ns, bool cuda,
                      const std::vector<std::optional<ein::plan::library_call>>& calls, bool tf32 = false,
                      const std::vector<std::optional<tune::cuda_schedule>>& schedules = {}) {
  auto runs = [&](std::size_t k) { return which == part::whole || prep.in_prepare[k] == (which == part::weights); };
  auto bound = [&](const buffer& b) {
    return b.role != buffer::kind::temporary && (which == part::whole || b.weight == (which == part::weights));
  };
  std::vector<bool> used(plan.buffers.size(), false);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    if (which == part::weights && prep.state[k] >= 0) used[plan.steps[k].call->filter()] = true;
    if (!runs(k)) continue;
    for (auto id : plan.steps[k].reads) used[id] = true;
    used[plan.steps[k].target] = true;
  }
  auto kept = [&](std::size_t id) { return which != part::whole && prep.keeps(id); };
  auto at = [&](std::size_t id) { return int_text(prep.offset[prep.slot(id)]); };

  std::string mine, others;  // the names this body binds, and the program's other ones
  for (auto& b : plan.buffers) {
    if (b.role == buffer::kind::temporary) continue;
    std::string& list = bound(b) ? mine : others;
    list += (list.empty() ? "" : ", ") + string_literal(b.name);
  }
  if (which == part::whole) w.line("b.expect_only({" + mine + "});");
  if (which == part::weights) w.line("b.expect_weights_only({" + mine + "}, {" + others + "});");
  if (which == part::rest) w.line("b.expect_no_weights({" + mine + "}, {" + others + "});");
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    const buffer& b = plan.buffers[id];
    if (!bound(b)) continue;
    std::string t = element_text(b.type), unused = used[id] || kept(id) ? "" : "[[maybe_unused]] ";
    if (b.role == buffer::kind::input)
      w.line(unused + "const " + t + "* " + b.variable + " = b.input<" + t + ">(" +
             string_literal(b.name) + ", " + shape_list(b.shape) + ");");
    else
      w.line(unused + t + "* " + b.variable + " = b.output<" + t + ">(" + string_literal(b.name) +
             ", " + shape_list(b.shape) + ");");
  }
  // An output sharing memory with another bound buffer would be read after it is written.
  std::string regions;
  bool writes = false;
  for (auto& b : plan.buffers) {
    if (!bound(b)) continue;
    bool written = b.role == buffer::kind::output;
    writes = writes || written;
    regions += (regions.empty() ? "{" : ", {") + string_literal(b.name) + ", " + b.variable + ", " +
               int_text(b.count() * element_bytes(b.type)) + (written ? ", true}" : ", false}");
  }
  if (writes) w.line("b.expect_disjoint({" + regions + "});");
  if (cuda)
    for (auto& b : plan.buffers)
      if (bound(b))
        w.line("ein::runtime::expect_device_pointer(" + string_literal(b.name) + ", " + b.variable + ");");
  // The storage: transformed weights written by prepare(), everything kept read by run_prepared().
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    const buffer& b = plan.buffers[id];
    if (!kept(id) || (which == part::weights && b.weight)) continue;
    std::string t = (which == part::rest ? "const " : "") + element_text(b.type);
    std::string bytes = which == part::rest ? "static_cast<const std::byte*>(storage)" : "static_cast<std::byte*>(storage)";
    w.line(t + "* " + b.variable + " = reinterpret_cast<" + t + "*>(" + bytes + " + " + at(id) + ");");
  }
  // The temporaries this body writes share one block by lifetime (plan/memory.hpp); its name
  // never begins a buffer variable (they all begin with `t_`).
  std::vector<bool> filter_prepared(plan.buffers.size(), false);  // read by prepare()'s oneDNN states
  if (which == part::weights)
    for (std::size_t k = 0; k < plan.steps.size(); ++k)
      if (prep.state[k] >= 0) filter_prepared[plan.steps[k].call->filter()] = true;
  auto block = ein::plan::place_temporaries(
      plan.buffers, plan.steps, runs,
      [&](std::size_t id) { return plan.buffers[id].role == buffer::kind::temporary && !kept(id); },
      [&](std::size_t id) { return filter_prepared[id]; }, cuda ? 256 : 64);
  if (block.bytes > 0)
    w.line(cuda ? "ein::runtime::device_buffer<std::byte> ein_temporaries(" + int_text(block.bytes) + ", s);"
                : "ein::runtime::host_buffer<std::byte> ein_temporaries(" + int_text(block.bytes) + ");");
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    if (block.offset[id] < 0) continue;
    std::string t = element_text(plan.buffers[id].type);
    w.line(t + "* " + plan.buffers[id].variable + " = reinterpret_cast<" + t + "*>(ein_temporaries.data() + " +
           int_text(block.offset[id]) + ");");
  }
  if (which == part::weights)
    for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
      const buffer& b = plan.buffers[id];
      if (!b.weight || !kept(id)) continue;
      std::string to = "static_cast<std::byte*>(storage) + " + at(id);
      std::string bytes = int_text(b.count() * element_bytes(b.type));
      w.line(cuda ? "EIN_CUDA_CHECK(cudaMemcpyAsync(" + to + ", " + b.variable + ", " + bytes +
                        ", cudaMemcpyDefault, s));"
                  : "std::memcpy(" + to + ", " + b.variable + ", " + bytes + ");");
    }
  std::vector<std::optional<ein::plan::library_call>> running(calls.size());
  for (std::size_t k = 0; k < calls.size(); ++k)
    if (runs(k)) running[k] = calls[k];
  // The handles are bound to stream s when made (runtime::cublas_handle, cudnn_handle); cuBLASLt
  // takes the stream in each call.
  if (cuda && any_product(running, false))
    w.line("const cublasHandle_t ein_cublas = " + ns + "::cublas_handle(s);");
  if (cuda && any_product(running, true))
    w.line("const ein::runtime::cublaslt_handle& ein_cublaslt = " + ns + "::cublaslt_handle(s);");
  if (cuda && any_call(running, ein::plan::cudnn))
    w.line("const cudnnHandle_t ein_cudnn = " + ns + "::cudnn_handle(s);");
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    if (!runs(k)) continue;
    auto& s = plan.steps[k];
    // run() binds the weights on every call, so it runs their transforms every time too.
    if (which == part::whole && k == 0 && s.weight_only)
      w.comment("[weight transform]: steps that read weights only (prepare() runs them once)");
    if (which == part::whole && k > 0 && plan.steps[k - 1].weight_only && !s.weight_only)
      w.comment("steps that read the inputs");
    if (which == part::rest && prep.state[k] >= 0)
      emit_onednn_prepared_call(w, s, plan, *calls[k], prep.state[k]);
    else if (cuda && calls[k] && calls[k]->library == ein::plan::cudnn)
      emit_cudnn_call(w, s, plan, *calls[k], ns, "ein_cudnn");
    else if (cuda && calls[k] && calls[k]->epilogue)
      emit_cublaslt_call(w, s, plan, *calls[k], ns, "ein_cublaslt");
    else if (cuda && calls[k])
      emit_cublas_call(w, s, plan, *calls[k], "ein_cublas", tf32);
    else if (cuda)
      emit_cuda_launch(w, s, plan, ns, k < schedules.size() ? schedules[k] : std::nullopt);
    else
      w.line(ns + "::" + s.function + "_host(" + arguments_text(s, plan) + ");");
  }
  // The oneDNN steps' filters, reordered once into the states run_prepared() reads.
  if (which == part::weights)
    for (std::size_t k = 0; k < plan.steps.size(); ++k)
      if (prep.state[k] >= 0) emit_onednn_preparation(w, plan.steps[k], plan, *calls[k], ns, prep.state[k]);
  // The storage is then ready for work on any stream.
  if (cuda && which == part::weights) w.line("EIN_CUDA_CHECK(cudaStreamSynchronize(s));");
}

}  // namespace detail

}  // namespace ein::codegen
