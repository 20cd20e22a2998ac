// The bodies of a plan's entry points (run(), run_host(), prepare(), run_prepared()): binding
// checks, bound pointers, storage and temporaries, and one call per step, host or CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/named_plan.hpp"
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

// The body of one entry point (run()/run_host(), prepare() or run_prepared()), written phase by
// phase, each a function: what the phases share (which steps run, which buffers are bound or
// kept in the storage) is decided once, in the constructor.
class body_emitter {
 public:
  body_emitter(writer& w, const named_plan& plan, const preparation& prep, part which, const std::string& ns, bool cuda,
               const std::vector<std::optional<ein::plan::library_call>>& calls, bool tf32,
               const std::vector<std::optional<tune::cuda_schedule>>& schedules)
      : w_(w), plan_(plan), prep_(prep), which_(which), ns_(ns), cuda_(cuda), calls_(calls), tf32_(tf32),
        schedules_(schedules), used_(plan.buffers.size(), false) {
    for (std::size_t k = 0; k < plan.steps.size(); ++k) {
      if (which == part::weights && prep.state[k] >= 0) used_[plan.steps[k].call->filter()] = true;
      if (!runs(k)) continue;
      for (auto id : plan.steps[k].reads) used_[id] = true;
      used_[plan.steps[k].target] = true;
    }
  }

  void emit() {
    check_bindings();
    bind_pointers();
    check_disjoint_outputs();
    if (cuda_) check_device_pointers();
    point_into_storage();
    take_temporaries();
    if (which_ == part::weights) copy_weights_into_storage();
    bind_library_handles();
    call_steps();
    if (which_ == part::weights) prepare_onednn_states();
    // The storage is then ready for work on any stream.
    if (cuda_ && which_ == part::weights) w_.line("EIN_CUDA_CHECK(cudaStreamSynchronize(s));");
  }

 private:
  bool runs(std::size_t k) const { return which_ == part::whole || prep_.in_prepare[k] == (which_ == part::weights); }
  bool bound(const buffer& b) const {
    return b.role != buffer::kind::temporary && (which_ == part::whole || b.weight == (which_ == part::weights));
  }
  bool kept(std::size_t id) const { return which_ != part::whole && prep_.keeps(id); }
  std::string at(std::size_t id) const { return int_text(prep_.offset[prep_.slot(id)]); }

  // The names this body binds and the program's other ones, checked against the bindings.
  void check_bindings() {
    std::string mine, others;
    for (auto& b : plan_.buffers) {
      if (b.role == buffer::kind::temporary) continue;
      std::string& list = bound(b) ? mine : others;
      list += (list.empty() ? "" : ", ") + string_literal(b.name);
    }
    if (which_ == part::whole) w_.line("b.expect_only({" + mine + "});");
    if (which_ == part::weights) w_.line("b.expect_weights_only({" + mine + "}, {" + others + "});");
    if (which_ == part::rest) w_.line("b.expect_no_weights({" + mine + "}, {" + others + "});");
  }

  // One pointer per bound buffer, `[[maybe_unused]]` where no step of this body uses it.
  void bind_pointers() {
    for (std::size_t id = 0; id < plan_.buffers.size(); ++id) {
      const buffer& b = plan_.buffers[id];
      if (!bound(b)) continue;
      std::string t = element_text(b.type), unused = used_[id] || kept(id) ? "" : "[[maybe_unused]] ";
      if (b.role == buffer::kind::input)
        w_.line(unused + "const " + t + "* " + b.variable + " = b.input<" + t + ">(" + string_literal(b.name) + ", " +
                shape_list(b.shape) + ");");
      else
        w_.line(unused + t + "* " + b.variable + " = b.output<" + t + ">(" + string_literal(b.name) + ", " +
                shape_list(b.shape) + ");");
    }
  }

  // An output sharing memory with another bound buffer would be read after it is written.
  void check_disjoint_outputs() {
    std::string regions;
    bool writes = false;
    for (auto& b : plan_.buffers) {
      if (!bound(b)) continue;
      bool written = b.role == buffer::kind::output;
      writes = writes || written;
      regions += (regions.empty() ? "{" : ", {") + string_literal(b.name) + ", " + b.variable + ", " +
                 int_text(b.count() * element_bytes(b.type)) + (written ? ", true}" : ", false}");
    }
    if (writes) w_.line("b.expect_disjoint({" + regions + "});");
  }

  void check_device_pointers() {
    for (auto& b : plan_.buffers)
      if (bound(b)) w_.line("ein::runtime::expect_device_pointer(" + string_literal(b.name) + ", " + b.variable + ");");
  }

  // The storage: transformed weights written by prepare(), everything kept read by run_prepared().
  void point_into_storage() {
    for (std::size_t id = 0; id < plan_.buffers.size(); ++id) {
      const buffer& b = plan_.buffers[id];
      if (!kept(id) || (which_ == part::weights && b.weight)) continue;
      std::string t = (which_ == part::rest ? "const " : "") + element_text(b.type);
      std::string bytes =
          which_ == part::rest ? "static_cast<const std::byte*>(storage)" : "static_cast<std::byte*>(storage)";
      w_.line(t + "* " + b.variable + " = reinterpret_cast<" + t + "*>(" + bytes + " + " + at(id) + ");");
    }
  }

  // The temporaries this body writes share one block by lifetime (plan/memory.hpp); its name
  // never begins a buffer variable (they all begin with `t_`).
  void take_temporaries() {
    std::vector<bool> filter_prepared(plan_.buffers.size(), false);  // read by prepare()'s oneDNN states
    if (which_ == part::weights)
      for (std::size_t k = 0; k < plan_.steps.size(); ++k)
        if (prep_.state[k] >= 0) filter_prepared[plan_.steps[k].call->filter()] = true;
    auto block = ein::plan::place_temporaries(
        plan_.buffers, plan_.steps, [&](std::size_t k) { return runs(k); },
        [&](std::size_t id) { return plan_.buffers[id].role == buffer::kind::temporary && !kept(id); },
        [&](std::size_t id) { return filter_prepared[id]; }, cuda_ ? 256 : 64);
    if (block.bytes > 0)
      w_.line(cuda_ ? "ein::runtime::device_buffer<std::byte> ein_temporaries(" + int_text(block.bytes) + ", s);"
                    : "ein::runtime::host_buffer<std::byte> ein_temporaries(" + int_text(block.bytes) + ");");
    for (std::size_t id = 0; id < plan_.buffers.size(); ++id) {
      if (block.offset[id] < 0) continue;
      std::string t = element_text(plan_.buffers[id].type);
      w_.line(t + "* " + plan_.buffers[id].variable + " = reinterpret_cast<" + t + "*>(ein_temporaries.data() + " +
              int_text(block.offset[id]) + ");");
    }
  }

  // prepare(): the weights the storage keeps untransformed, copied into it.
  void copy_weights_into_storage() {
    for (std::size_t id = 0; id < plan_.buffers.size(); ++id) {
      const buffer& b = plan_.buffers[id];
      if (!b.weight || !kept(id)) continue;
      std::string to = "static_cast<std::byte*>(storage) + " + at(id);
      std::string bytes = int_text(b.count() * element_bytes(b.type));
      w_.line(cuda_ ? "EIN_CUDA_CHECK(cudaMemcpyAsync(" + to + ", " + b.variable + ", " + bytes +
                          ", cudaMemcpyDefault, s));"
                    : "std::memcpy(" + to + ", " + b.variable + ", " + bytes + ");");
    }
  }

  // The handles are bound to stream s when made (runtime::cublas_handle, cudnn_handle); cuBLASLt
  // takes the stream in each call.
  void bind_library_handles() {
    if (!cuda_) return;
    std::vector<std::optional<ein::plan::library_call>> running(calls_.size());
    for (std::size_t k = 0; k < calls_.size(); ++k)
      if (runs(k)) running[k] = calls_[k];
    if (any_product(running, false)) w_.line("const cublasHandle_t ein_cublas = " + ns_ + "::cublas_handle(s);");
    if (any_product(running, true))
      w_.line("const ein::runtime::cublaslt_handle& ein_cublaslt = " + ns_ + "::cublaslt_handle(s);");
    if (any_call(running, ein::plan::cudnn)) w_.line("const cudnnHandle_t ein_cudnn = " + ns_ + "::cudnn_handle(s);");
  }

  void call_steps() {
    for (std::size_t k = 0; k < plan_.steps.size(); ++k) {
      if (!runs(k)) continue;
      auto& s = plan_.steps[k];
      // run() binds the weights on every call, so it runs their transforms every time too.
      if (which_ == part::whole && k == 0 && s.weight_only)
        w_.comment("[weight transform]: steps that read weights only (prepare() runs them once)");
      if (which_ == part::whole && k > 0 && plan_.steps[k - 1].weight_only && !s.weight_only)
        w_.comment("steps that read the inputs");
      // run_prepared() tells its observer (runtime::step_observer) where each step begins and ends.
      const bool observed = which_ == part::rest;
      if (observed) w_.line("if (observer) observer->begin(" + int_text(static_cast<std::int64_t>(k)) + ", s);");
      call_step(k);
      if (observed) w_.line("if (observer) observer->end(" + int_text(static_cast<std::int64_t>(k)) + ", s);");
    }
  }

  // Step k: a library call (a prepared oneDNN state, cuDNN, cuBLASLt, cuBLAS), else a kernel
  // launch (cuda) or the step's host function.
  void call_step(std::size_t k) {
    auto& s = plan_.steps[k];
    if (which_ == part::rest && prep_.state[k] >= 0)
      emit_onednn_prepared_call(w_, s, plan_, *calls_[k], prep_.state[k]);
    else if (cuda_ && calls_[k] && calls_[k]->library == ein::plan::cudnn)
      emit_cudnn_call(w_, s, plan_, *calls_[k], ns_, "ein_cudnn");
    else if (cuda_ && calls_[k] && calls_[k]->epilogue)
      emit_cublaslt_call(w_, s, plan_, *calls_[k], ns_, "ein_cublaslt");
    else if (cuda_ && calls_[k])
      emit_cublas_call(w_, s, plan_, *calls_[k], "ein_cublas", tf32_);
    else if (cuda_)
      emit_cuda_launch(w_, s, plan_, ns_, k < schedules_.size() ? schedules_[k] : std::nullopt);
    else
      w_.line(ns_ + "::" + s.function + "_host(" + arguments_text(s, plan_) + ");");
  }

  // The oneDNN steps' filters, reordered once into the states run_prepared() reads.
  void prepare_onednn_states() {
    for (std::size_t k = 0; k < plan_.steps.size(); ++k)
      if (prep_.state[k] >= 0) emit_onednn_preparation(w_, plan_.steps[k], plan_, *calls_[k], ns_, prep_.state[k]);
  }

  writer& w_;
  const named_plan& plan_;
  const preparation& prep_;
  const part which_;
  const std::string& ns_;
  const bool cuda_;
  const std::vector<std::optional<ein::plan::library_call>>& calls_;
  const bool tf32_;
  const std::vector<std::optional<tune::cuda_schedule>>& schedules_;
  std::vector<bool> used_;  // buffers read or written by a step this body runs
};

// The body of run()/run_host(), prepare() or run_prepared(): check the bindings, take the bound
// pointers, point into the storage, take temporaries, call each step of `which`. Library steps
// call the plan's cuBLAS handle `ein_cublas` (on TF32 tensor cores where `tf32` says so) or cuDNN
// handle `ein_cudnn` (cuda), or their CBLAS or oneDNN host function; prepare() makes the states of
// oneDNN steps whose filter it has (preparation::state), which run_prepared() calls.
// Kernels launch under `schedules[k]` for step k where one is given (cuda_point).
inline void emit_body(writer& w, const named_plan& plan, const preparation& prep, part which,
                      const std::string& ns, bool cuda,
                      const std::vector<std::optional<ein::plan::library_call>>& calls, bool tf32 = false,
                      const std::vector<std::optional<tune::cuda_schedule>>& schedules = {}) {
  body_emitter(w, plan, prep, which, ns, cuda, calls, tf32, schedules).emit();
}

}  // namespace detail

}  // namespace ein::codegen
