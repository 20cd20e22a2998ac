// The CUDA source emitter of the cuda backend: one kernel per eOperator step, the library
// handles and cuDNN states, and the entry points the header's plan calls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/emission.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/options.hpp"
#include "ein/codegen/preparation.hpp"
#include "ein/codegen/run_body.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/plan/plan.hpp"

namespace ein::codegen {

namespace detail {

// `static void make_state_cuda_<key>(ein::runtime::stream s)`: every piece of the plan's library
// state for stream s on this thread (cuBLAS, cuBLASLt and cuDNN handles, each product's cuBLASLt
// descriptors, each convolution's cuDNN state) and each launch's resident-block count, made now
// if not made before.
inline void emit_make_state(writer& w, const layout& plan,
                            const std::vector<std::optional<ein::plan::library_call>>& calls,
                            const std::string& entry) {
  const bool cublas = any_product(calls, false), cublaslt = any_product(calls, true);
  const bool cudnn = any_call(calls, ein::plan::cudnn);
  bool launches = false;
  for (std::size_t k = 0; k < plan.steps.size(); ++k)
    launches = launches || (!calls[k] && !empty_box(plan.steps[k].value->traversal));
  w.line();
  w.comment("The plan's state for stream s on this thread, made ahead of its runs: handle creation,\n"
            "device allocations and occupancy queries are not allowed under stream capture.");
  const bool library = cublas || cublaslt || cudnn;
  w.open("static void " + entry + "(" + (library ? "" : "[[maybe_unused]] ") + "ein::runtime::stream s)");
  if (cublas) w.line("cublas_handle(s);");
  if (cublaslt) w.line("cublaslt_handle(s);");
  if (cudnn) w.line("cudnn_handle(s);");
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    if (calls[k] && calls[k]->library == ein::plan::cudnn) w.line(cudnn_state_function(s) + "(s);");
    if (calls[k] && calls[k]->library == ein::plan::blas && calls[k]->epilogue)
      w.line(cublaslt_state_function(s) + "(s);");
    if (!calls[k] && !empty_box(s.value->traversal)) w.line(resident_function(s) + "();");
  }
  if (!library && !launches) w.comment("nothing: the plan launches nothing");
  w.close();
}

// The capture of a prepared run into a CUDA graph on a stream of the graph's own
// (runtime::cuda_graph: state made there first, then one run on scratch outputs, so that the
// libraries' first-use work is not captured), its replay and its release.
inline void emit_graph_entries(writer& w, const layout& plan, const options& o) {
  std::string outputs;
  for (auto& b : plan.buffers)
    if (b.role == buffer::kind::output)
      outputs += (outputs.empty() ? "{" : ", {") + string_literal(b.name) + ", " +
                 int_text(b.count() * element_bytes(b.type)) + "}";
  const std::string run_prepared = cuda_entry(o, "run_prepared");
  w.comment("A prepared run captured into a CUDA graph on a stream of its own, and its replays.");
  w.open(capture_signature(o));
  w.line("return new ein::runtime::cuda_graph(");
  w.line("    [&](cudaStream_t own) {");
  w.line("      " + cuda_entry(o, "make_state") + "(own);");
  w.line("      const ein::runtime::scratch_outputs scratch(b, {" + outputs + "}, own);");
  w.line("      " + run_prepared + "(storage, scratch.get(), own);");
  w.line("    },");
  w.line("    [&](cudaStream_t own) { " + run_prepared + "(storage, b, own); });");
  w.close();
  w.open(replay_signature(o));
  w.line("static_cast<const ein::runtime::cuda_graph*>(graph)->replay(s);");
  w.close();
  w.open(free_graph_signature(o));
  w.line("delete static_cast<ein::runtime::cuda_graph*>(graph);");
  w.close();
}

}  // namespace detail

/// The CUDA source of the cuda backend, for nvcc: one kernel per step and the entry points that
/// the header's plan calls (binding checks, stream-ordered temporaries, checked launches; the
/// prepared plan's storage, prepare and run; the capture of a prepared run into a CUDA graph and
/// its replay). The plan's library state for a stream (runtime::per_stream) is made by
/// make_state_cuda_<key>(s), which prepare() calls for its stream and a capture for the graph's
/// own stream, so that nothing is created under stream capture. It includes runtime headers only.
/// @pre o.target == backend::cuda
/// `e` is make_emission(p, o).
inline std::string emit_cuda_source(const emission& e, const options& o) {
  const layout& plan = e.steps;
  const bool tf32 = e.plan.tf32;
  auto calls = emitted_calls(plan, o.target);
  const bool cublas = any_product(calls, false), cublaslt = any_product(calls, true);
  const bool cudnn = any_call(calls, ein::plan::cudnn);
  const std::string ns = "ein_generated::" + o.name;
  writer w;
  w.comment(o.name + ".cu: the CUDA kernels of the plan of " + o.object +
            ", generated by ein (ein_generate).\nDo not edit: it is rewritten with " + o.name + ".hpp.");
  w.line("#include <cstddef>");
  w.line("#include <cstdint>");
  w.line();
  w.line("#include \"ein/runtime/bindings.hpp\"");
  if (cublas || cublaslt) w.line("#include \"ein/runtime/cublas.hpp\"");
  if (cublaslt) w.line("#include \"ein/runtime/cublaslt.hpp\"");
  w.line("#include \"ein/runtime/cuda.hpp\"");
  w.line("#include \"ein/runtime/cuda_graph.hpp\"");
  if (cudnn) w.line("#include \"ein/runtime/cudnn.hpp\"");
  w.line("#include \"ein/runtime/eoperator.hpp\"");
  if (cublas || cublaslt || cudnn) w.line("#include \"ein/runtime/per_stream.hpp\"");
  w.line("#include \"ein/runtime/plan.hpp\"");
  w.line();
  w.open_namespace(ns);
  if (cublas) {
    w.line();
    w.comment("The plan's cuBLAS handle for stream s on this thread (runtime::per_stream), bound to s\n"
              "with a workspace of its own: made by make_state (or a first run there), kept for the process.");
    w.open("static cublasHandle_t cublas_handle(cudaStream_t s)");
    w.line(library::state_table("cublas_handle", "handles"));
    w.line("return handles.get(ein::runtime::current_device(), s, [s] { return std::make_unique<ein::runtime::cublas_handle>(s); })");
    w.line("    .get();");
    w.close();
  }
  if (cublaslt) {
    w.line();
    w.comment("The plan's cuBLASLt handle and workspace for stream s on this thread, shared by its\n"
              "products that end in an epilogue (runtime::per_stream): made by make_state (or a first\n"
              "run there), kept for the process.");
    w.open("static const ein::runtime::cublaslt_handle& cublaslt_handle(cudaStream_t s)");
    w.line(library::state_table("cublaslt_handle", "handles"));
    w.line("return handles.get(ein::runtime::current_device(), s, [] { return std::make_unique<ein::runtime::cublaslt_handle>(); });");
    w.close();
    for (std::size_t k = 0; k < plan.steps.size(); ++k) {
      if (!calls[k] || calls[k]->library != ein::plan::blas || !calls[k]->epilogue) continue;
      auto& s = plan.steps[k];
      w.line();
      w.comment(plan.buffers[s.target].name + " = " + calls[k]->str(plan.buffers) +
                ": cuBLASLt's descriptors, made by make_state.");
      emit_cublaslt_state(w, s, plan, *calls[k], tf32);
    }
  }
  if (cudnn) {
    w.line();
    w.comment("The plan's cuDNN handle for stream s on this thread, bound to s and shared by its\n"
              "convolution steps (runtime::per_stream): made by make_state (or a first run there),\n"
              "kept for the process.");
    w.open("static cudnnHandle_t cudnn_handle(cudaStream_t s)");
    w.line(library::state_table("cudnn_handle", "handles"));
    w.line("return handles.get(ein::runtime::current_device(), s, [s] { return std::make_unique<ein::runtime::cudnn_handle>(s); })");
    w.line("    .get();");
    w.close();
    for (std::size_t k = 0; k < plan.steps.size(); ++k) {
      if (!calls[k] || calls[k]->library != ein::plan::cudnn) continue;
      auto& s = plan.steps[k];
      w.line();
      w.comment(plan.buffers[s.target].name + " = " + calls[k]->str(plan.buffers) +
                ": descriptors, algorithm and workspace, chosen by make_state.");
      library::emit_cudnn_state(w, calls[k]->op, cudnn_state_function(s), "cudnn_handle(s)", tf32,
                                epilogue_form_of(s, plan));
    }
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    if (calls[k]) continue;  // a library call: no kernel
    w.line();
    w.comment(plan.buffers[s.target].name + " = " + ir::to_string(*s.value));
    const auto point = k < o.cuda_schedules.size() ? o.cuda_schedules[k] : std::nullopt;
    emit_cuda_kernel(w, s, plan, e.plan.accumulate, point);
    emit_resident_blocks(w, s, plan, point);
  }
  detail::emit_make_state(w, plan, calls, cuda_entry(o, "make_state"));
  const preparation& prep = e.prep;
  const std::string unused = prep.bytes ? "" : "[[maybe_unused]] ";
  w.line();
  w.open("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s)");
  detail::emit_body(w, plan, prep, detail::part::whole, ns, true, calls, tf32, o.cuda_schedules);
  w.close();
  w.line();
  w.comment("A prepared plan: the weight transforms once, into the storage; then the other steps.");
  w.comment("It makes the plan's library state for stream s too (make_state), ahead of any capture.");
  w.open(detail::prepare_signature(o, unused));
  detail::emit_body(w, plan, prep, detail::part::weights, ns, true, calls, tf32, o.cuda_schedules);
  w.line(cuda_entry(o, "make_state") + "(s);");
  w.close();
  w.open(detail::run_prepared_signature(o, unused));
  detail::emit_body(w, plan, prep, detail::part::rest, ns, true, calls, tf32, o.cuda_schedules);
  w.close();
  w.open("void* " + cuda_entry(o, "allocate_prepared") + "()");
  w.line("return ein::runtime::allocate_device_storage(" + int_text(prep.bytes) + ");");
  w.close();
  w.open("void " + cuda_entry(o, "free_prepared") + "(void* storage) noexcept");
  w.line("ein::runtime::free_device_storage(storage);");
  w.close();
  detail::emit_graph_entries(w, plan, o);
  w.close_namespace(ns);
  return w.str();
}

/// emit_cuda_source of the emission of `p` under `o`.
inline std::string emit_cuda_source(const ein::plan::program_plan& p, const options& o) {
  return emit_cuda_source(make_emission(p, o), o);
}

}  // namespace ein::codegen
