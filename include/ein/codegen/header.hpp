// The header emitter: the whole generated header of a plan (its freshness check, its host
// functions and the ein::runtime::generated_plan specialization that ein::run dispatches to).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/backend.hpp"
#include "ein/codegen/emission.hpp"
#include "ein/codegen/host.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/options.hpp"
#include "ein/codegen/precision.hpp"
#include "ein/codegen/preparation.hpp"
#include "ein/codegen/run_body.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/plan.hpp"

namespace ein::codegen {

/// The error a check of the plan's run() should allow against the interpreter (codegen::tolerance
/// of its steps as `target`'s run() computes them: library calls as bound, on TF32 where `tf32`
/// says so on cuda, eOperators as `accumulate` asks).
inline double tolerance(const named_plan& plan, backend target, accumulation accumulate, bool tf32) {
  auto calls = emitted_calls(plan, target);
  std::vector<ir::dtype> types;
  std::vector<bool> library;
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    types.push_back(calls[k] ? calls[k]->op.type : compute_type(plan.steps[k], plan, accumulate));
    library.push_back(calls[k].has_value());
  }
  return tolerance(plan, types, library, tf32 && target == backend::cuda);
}

/// The name of a CUDA entry point of a plan, `<what>_cuda_<key>` (`what`: run, prepare,
/// run_prepared, allocate_prepared, free_prepared, make_state, capture, replay, free_graph): it
/// carries the program key, so a header and a CUDA source generated for different programs do
/// not link together.
inline std::string cuda_entry(const options& o, const std::string& what = "run") {
  return what + "_cuda_" + ir::fingerprint_text(o.key);
}

/// One host function per step of `plan`, each after a comment saying what it computes: a step
/// `calls` binds runs its CBLAS (or, as `gemm` says, oneDNN sgemm) or oneDNN call, any other is an
/// eOperator computing as `accumulate` asks, under `schedules[k]` for step k where one is given
/// (else its default: emit_host_function).
inline void emit_step_functions(writer& w, const named_plan& plan,
                                const std::vector<std::optional<ein::plan::library_call>>& calls,
                                accumulation accumulate, library::host_gemm gemm = library::host_gemm::cblas,
                                const std::vector<std::optional<tune::host_schedule>>& schedules = {}) {
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    w.line();
    w.comment(plan.buffers[s.target].name + " = " + ir::to_string(*s.value) +
              (calls[k] ? "\nas " + calls[k]->str(plan.buffers) : ""));
    if (calls[k] && calls[k]->library == ein::plan::onednn)
      emit_onednn_function(w, s, plan, *calls[k]);
    else if (calls[k] && calls[k]->op.type == ir::dtype::bf16)
      emit_onednn_matmul_function(w, s, plan, *calls[k]);
    else if (calls[k])
      emit_cblas_function(w, s, plan, *calls[k], gemm);
    else
      emit_host_function(w, s, plan, accumulate, k < schedules.size() ? schedules[k] : std::nullopt);
  }
}

namespace detail {

// The signatures of the CUDA entry points, as the header declares them and the source defines
// them (`unused` marks parameters a plan without storage does not read).
inline std::string prepare_signature(const options& o, const std::string& unused = "") {
  return "void " + cuda_entry(o, "prepare") + "(const ein::runtime::bindings& b, " + unused +
         "void* storage, ein::runtime::stream s)";
}
inline std::string run_prepared_signature(const options& o, const std::string& unused = "") {
  return "void " + cuda_entry(o, "run_prepared") + "(" + unused +
         "const void* storage, const ein::runtime::bindings& b, ein::runtime::stream s, "
         "[[maybe_unused]] ein::runtime::step_observer* observer)";
}

// The graph entry points of a cuda plan (ein::captured calls them through the plan).
inline std::string capture_signature(const options& o) {
  return "void* " + cuda_entry(o, "capture") + "(const void* storage, const ein::runtime::bindings& b)";
}
inline std::string replay_signature(const options& o) {
  return "void " + cuda_entry(o, "replay") + "(const void* graph, ein::runtime::stream s)";
}
inline std::string free_graph_signature(const options& o) {
  return "void " + cuda_entry(o, "free_graph") + "(void* graph) noexcept";
}

// The members of the plan specialization that prepare a plan (ein::prepare calls them).
inline void emit_prepared_members(writer& w, const named_plan& plan, const preparation& prep,
                                  const options& o, const std::string& ns,
                                  const std::vector<std::optional<ein::plan::library_call>>& calls) {
  const bool cuda = o.target == backend::cuda;
  w.comment("A prepared plan (ein::prepare): prepare() binds the weights only, runs the weight\n"
            "transforms once and keeps, in prepared_bytes of storage (" +
            std::string(cuda ? "device" : "host") + " memory from allocate_prepared()),\n"
            "what the other steps read; run_prepared() binds inputs and outputs and runs the other steps.");
  w.line("static constexpr std::size_t prepared_bytes = " + int_text(prep.bytes) + ";");
  if (cuda) {
    // `signature { [return] <ns>::<entry of o>(arguments); }`: a member that calls the CUDA source.
    auto forward = [&](const std::string& signature, const char* entry, const std::string& arguments) {
      w.open(signature);
      w.line((signature.rfind("static void ", 0) == 0 ? "" : "return ") + ns + "::" + cuda_entry(o, entry) + "(" +
             arguments + ");");
      w.close();
    };
    forward("static void* allocate_prepared()", "allocate_prepared", "");
    forward("static void free_prepared(void* storage) noexcept", "free_prepared", "storage");
    w.comment("Device pointers; prepare() returns when the storage is ready, run_prepared() is\n"
              "asynchronous on stream s.");
    forward("static void prepare(const bindings& b, void* storage, stream s = nullptr)", "prepare", "b, storage, s");
    forward("static void run_prepared(const void* storage, const bindings& b, stream s = nullptr, "
            "step_observer* observer = nullptr)",
            "run_prepared", "storage, b, s, observer");
    w.comment("A CUDA graph of run_prepared(storage, b) captured on a stream of its own (ein::captured),\n"
              "replayed on stream s, released by free_graph().");
    forward("static void* capture(const void* storage, const bindings& b)", "capture", "storage, b");
    forward("static void replay(const void* graph, stream s = nullptr)", "replay", "graph, s");
    forward("static void free_graph(void* graph) noexcept", "free_graph", "graph");
    return;
  }
  w.open("static void* allocate_prepared()");
  if (prep.has_states()) {
    w.comment("The oneDNN states are null until prepare() makes them.");
    w.line("void* storage = ein::runtime::allocate_host_storage(prepared_bytes);");
    for (auto offset : prep.state)
      if (offset >= 0) w.line("ein::runtime::onednn_slot(storage, " + int_text(offset) + ") = nullptr;");
    w.line("return storage;");
  } else {
    w.line("return ein::runtime::allocate_host_storage(prepared_bytes);");
  }
  w.close();
  w.open("static void free_prepared(void* storage) noexcept");
  for (auto offset : prep.state)
    if (offset >= 0) w.line("delete ein::runtime::onednn_slot(storage, " + int_text(offset) + ");");
  w.line("ein::runtime::free_host_storage(storage);");
  w.close();
  w.comment("Host pointers; the stream is not used.");
  w.open("static void prepare(const bindings& b, [[maybe_unused]] void* storage, [[maybe_unused]] stream s = nullptr)");
  emit_body(w, plan, prep, part::weights, ns, false, calls);
  w.close();
  w.open("static void run_prepared([[maybe_unused]] const void* storage, const bindings& b, "
         "[[maybe_unused]] stream s = nullptr, [[maybe_unused]] step_observer* observer = nullptr)");
  emit_body(w, plan, prep, part::rest, ns, false, calls);
  w.close();
}

// The program object of a program imported from an ONNX file, which has no model header, or of
// a gradient program: `program` lists the names of its tensors, `net` is what ein::run and
// ein::prepare take.
inline void emit_program_object(writer& w, const named_plan& plan, const std::vector<std::string>& outputs,
                                const options& o) {
  std::vector<std::string> inputs, weights;
  for (auto& b : plan.buffers)
    if (b.role == buffer::kind::input) (b.weight ? weights : inputs).push_back(b.name);
  auto names = [&](const char* member, const std::vector<std::string>& list) {
    std::string text;
    for (auto& n : list) text += (text.empty() ? "" : ", ") + string_literal(n);
    w.line("static constexpr std::array<std::string_view, " + int_text(static_cast<std::int64_t>(list.size())) + "> " +
           member + " = {" + text + "};");
  };
  w.line();
  if (!o.gradient.empty())
    w.comment("The gradient of " + o.gradient + ": its inputs and weights, a seed\n"
              "<y>_grad per output y, and as outputs the forward's and <x>_grad per tensor x differentiated.");
  else
    w.comment("The program imported from " + o.onnx + ", bound by its ONNX names: graph inputs,\n"
              "weights (initializers, and Constant values read as tensors) and graph outputs.");
  w.open("struct program");
  names("inputs", inputs);
  names("weights", weights);
  names("outputs", outputs);
  w.close(";");
  w.line("inline constexpr program net{};");
}

}  // namespace detail

/// The generated header of `p`, for the host compiler: includes the model and runtime headers
/// only; a static_assert rejects it when `ein::program_key(object)` no longer equals `o.key`
/// (the model changed); one host function per step in namespace `ein_generated::<name>`; and
/// `ein::runtime::generated_plan<std::remove_cvref_t<decltype(object)>>` with run(), run_host() and the
/// members of a prepared plan (prepared_bytes, allocate_prepared(), free_prepared(), prepare(),
/// run_prepared(); for cuda also capture(), replay(), free_graph()). For the cuda backend run() and the prepared
/// members call the entry points defined in the CUDA source (emit_cuda_source), so the model and
/// the front end never go through nvcc. The same program and options give the same bytes.
/// `e` is make_emission(p, o).
inline std::string emit_header(const emission& e, const options& o) {
  const ein::plan::program_plan& p = e.plan;
  const named_plan& plan = e.steps;
  const preparation& prep = e.prep;
  const bool cuda = o.target == backend::cuda;
  // The cuda backend's run_host() keeps the loops: its consumers need no CBLAS.
  auto calls = emitted_calls(plan, o.target, cuda);
  const std::string file = o.name + ".hpp", ns = "ein_generated::" + o.name;
  const std::string object = o.object.rfind("::", 0) == 0 ? o.object : "::" + o.object;
  const bool imported = !o.onnx.empty();
  // An imported program and a gradient program are defined here: no model header defines them.
  const bool defined_here = imported || !o.gradient.empty();
  writer w;
  w.comment(file + ": the plan of " + o.object + ", generated by ein (ein_generate) from " +
            (imported ? o.onnx : o.model_header) + (o.gradient.empty() ? "" : ", the gradient of " + o.gradient) +
            ".\nDo not edit: it is rewritten when the model changes." +
            (cuda ? "\nIts CUDA kernels are in " + o.name + ".cu." : ""));
  w.comment("\n" + e.description);
  w.line("#pragma once");
  w.line();
  w.line("#include \"ein/runtime/host_only.hpp\"");
  w.line();
  if (any_call(calls, ein::plan::blas)) {
    w.line("#include <cblas.h>");
    w.line();
  }
  if (defined_here) w.line("#include <array>");
  w.line("#include <cstddef>");
  w.line("#include <cstdint>");
  if (!cuda) w.line("#include <cstring>");
  w.line("#include <string_view>");
  w.line("#include <type_traits>");
  w.line();
  // A program defined here needs no model header: ein.hpp brings ein::run and ein::prepare.
  w.line("#include \"" + (defined_here ? std::string("ein/ein.hpp") : o.model_header) + "\"");
  w.line("#include \"ein/runtime/bindings.hpp\"");
  w.line("#include \"ein/runtime/eoperator.hpp\"");
  const auto gemm = cuda ? library::host_gemm::cblas : host_gemm_of(p.bound_for);
  if (any_call(calls, ein::plan::onednn) || any_onednn_gemm(calls, gemm))
    w.line("#include \"ein/runtime/onednn.hpp\"");
  if (any_onednn_matmul(calls)) w.line("#include \"ein/runtime/onednn_matmul.hpp\"");
  w.line("#include \"ein/runtime/plan.hpp\"");
  w.line();
  if (!defined_here) {
    w.line("static_assert(ein::program_key(" + object + ") == " + detail::key_literal(o.key) + ",");
    w.line("              \"ein: generated header " + file + " is stale: the program " + o.object +
           " changed since it was generated; rebuild to re-run the search\");");
    w.line();
  }
  w.open_namespace(ns);
  if (defined_here) detail::emit_program_object(w, plan, p.outputs, o);
  emit_step_functions(w, plan, calls, p.accumulate, gemm, o.host_schedules);
  if (cuda) {
    w.line();
    w.comment("Defined in " + o.name + ".cu: check the bindings and launch the kernels; the\n"
              "storage of a prepared plan; the CUDA graphs of its runs.");
    w.line("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s);");
    w.line(detail::prepare_signature(o) + ";");
    w.line(detail::run_prepared_signature(o) + ";");
    w.line("void* " + cuda_entry(o, "allocate_prepared") + "();");
    w.line("void " + cuda_entry(o, "free_prepared") + "(void* storage) noexcept;");
    w.line(detail::capture_signature(o) + ";");
    w.line(detail::replay_signature(o) + ";");
    w.line(detail::free_graph_signature(o) + ";");
  }
  w.close_namespace(ns);
  w.line();
  w.open_namespace("ein::runtime");
  w.line("template <>");
  w.open("struct generated_plan<std::remove_cvref_t<decltype(" + object + ")>>");
  w.line("static constexpr bool generated = true;");
  w.line(std::string("static constexpr backend target = backend::") + name(o.target) + ";");
  w.line("static constexpr std::string_view name = " + detail::string_literal(o.name) + ";");
  w.line("static constexpr std::string_view description =");
  w.line("    " + detail::string_literal(e.description) + ";");
  w.comment("The largest max_rel_err against the interpreter that a check of run() should allow.");
  w.line("static constexpr double tolerance = " + double_text(tolerance(plan, o.target, p.accumulate, p.tf32)) + ";");
  w.line();
  if (cuda) {
    w.comment("Device pointers; asynchronous on stream s.");
    w.open("static void run(const bindings& b, stream s = nullptr)");
    w.line(ns + "::" + cuda_entry(o) + "(b, s);");
    w.close();
    w.comment("Host pointers: the host loops.");
    w.open("static void run_host(const bindings& b)");
    detail::emit_body(w, plan, prep, detail::part::whole, ns, false, calls);
    w.close();
  } else {
    w.comment("Host pointers; the stream is not used.");
    w.open("static void run(const bindings& b, [[maybe_unused]] stream s = nullptr)");
    detail::emit_body(w, plan, prep, detail::part::whole, ns, false, calls);
    w.close();
    w.open("static void run_host(const bindings& b)");
    w.line("run(b);");
    w.close();
  }
  w.line();
  detail::emit_prepared_members(w, plan, prep, o, ns, calls);
  w.close(";");
  w.close_namespace("ein::runtime");
  return w.str();
}

/// emit_header of the emission of `p` under `o`.
inline std::string emit_header(const ein::plan::program_plan& p, const options& o) {
  return emit_header(make_emission(p, o), o);
}

}  // namespace ein::codegen
