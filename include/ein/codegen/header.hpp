// The header emitter: the whole generated header of a program (its freshness check, its
// eOperators and the ein::runtime::plan specialization that ein::run dispatches to).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/host.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"

namespace ein::codegen {

/// What a plan runs on: `host` (loops in the header), or `cuda` (the header keeps the host loops
/// for run_host(); kernels and their launches go to a CUDA source beside it).
enum class backend : std::uint8_t { host, cuda };
inline const char* name(backend b) { return b == backend::host ? "host" : "cuda"; }

/// The statistics of the search that chose a plan, for the JSON report.
struct search_summary {
  std::uint64_t states_visited = 0;
  std::uint64_t pruned_by_fingerprint = 0;
  int max_depth = 0;
  double time_s = 0;
  std::string stop_reason;
  std::string cost_model;  // the cost model's description
  std::string report;      // the search's report, one subprogram after another
};

/// What a generated header is tied to.
struct options {
  std::string name;          // file stem: the header is `<name>.hpp`; an identifier
  std::string model_header;  // the model header it includes (as the #include text, no quotes)
  std::string object;        // qualified C++ name of the program object, e.g. `conv3x3::net`
  std::uint64_t key = 0;     // ein::program_key(object) when the header was generated
  backend target = backend::host;
  std::string search = "none (instantiate as written)";  // how the plan was chosen
  std::optional<search_summary> statistics;  // of the search, where one chose the plan
  /// Compute-bound GEMM definitions become library calls (find_library_call): CBLAS on the host
  /// backend (the consumer then links a CBLAS), cuBLAS on the cuda backend; else eOperators.
  bool library_calls = false;
  /// With library_calls on the cuda backend: compute-bound conv2d / conv_transpose2d definitions
  /// that cuDNN runs as matched become cuDNN calls (the consumer then links cuDNN).
  bool cudnn_calls = false;
  /// How eOperators compute (precision.hpp): in their element type, or in double.
  accumulation accumulate = accumulation::element;
  /// Float library calls may round their operands to TF32 (cuBLAS and cuDNN on tensor cores);
  /// otherwise they run in full float (cuDNN with CUDNN_FMA_MATH).
  bool tf32 = false;
};

/// Whether plans generated under `o` can run operator instance `op` as a library call: the
/// operator test of find_library_call (a compute-bound GEMM where library calls are on; a
/// compute-bound convolution cuDNN runs as matched, on the cuda backend with cuDNN). Whether the
/// step reads and writes whole buffers is left to find_library_call. The search uses it to price
/// the kernels the backend runs as eOperators as such.
inline bool runs_as_library_call(const match::instance& op, const options& o) {
  if (!o.library_calls || match::memory_bound(op, 4.0)) return false;
  switch (op.kind) {
    case match::op_kind::matmul:
    case match::op_kind::batch_matmul:
      return detail::blas_accepts(op.gemm());
    case match::op_kind::conv2d:
    case match::op_kind::conv_transpose2d:
      return o.target == backend::cuda && o.cudnn_calls && detail::cudnn_accepts(op);
    default:
      return false;
  }
}

/// The library call of each step of `plan` under `o` (nothing for an eOperator).
inline std::vector<std::optional<library_call>> library_calls(const layout& plan, const options& o) {
  auto calls = find_library_calls(plan, o.library_calls, o.target == backend::cuda && o.cudnn_calls);
  for (auto& c : calls)
    if (c) c->tf32 = o.tf32 && o.target == backend::cuda;
  return calls;
}

/// The error a check of the plan's run() should allow against the interpreter (codegen::tolerance
/// of its steps as `calls` runs them and `o` computes its eOperators).
inline double tolerance(const layout& plan, const std::vector<std::optional<library_call>>& calls, const options& o) {
  std::vector<ir::dtype> types;
  std::vector<bool> library;
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    types.push_back(calls[k] ? calls[k]->op.type : compute_type(plan.steps[k], plan, o.accumulate));
    library.push_back(calls[k].has_value());
  }
  return tolerance(plan, types, library, o.tf32 && o.target == backend::cuda);
}

/// The plan in words, one line per step, e.g.
/// `conv = eOperator L_{n:[0,1), ...} Σ_{...} A[n, h + r - 1, w + s - 1, c] * K[r, s, f, c]` or
/// `xw = library matmul(A=x+0, B=W+0) batch=1 m=64 n=128 k=256 ...`. Weight transforms (steps
/// that read weights only; run() computes them first, prepare() once) are marked
/// `[weight transform]`.
inline std::string describe(const ir::program& p, const options& o) {
  layout plan = make_layout(p);
  auto calls = library_calls(plan, o);
  std::string r = "plan " + o.name + " of " + o.object + " (backend " + name(o.target) +
                  ", search: " + o.search + ")\n";
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    const buffer& b = plan.buffers[s.target];
    r += "  " + b.name + " = " + (calls[k] ? calls[k]->str() : "eOperator " + ir::to_string(*s.value)) +
         (b.role == buffer::kind::output ? "  [output]" : "  [temporary]") +
         (s.weight_only ? " [weight transform]" : "") + "\n";
  }
  return r;
}

namespace detail {

inline std::string hex_text(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llxULL", static_cast<unsigned long long>(v));
  return buf;
}

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
// call the plan's cuBLAS handle `ein_cublas` or cuDNN handle `ein_cudnn` (cuda), or their CBLAS
// host function.
inline void emit_body(writer& w, const layout& plan, const preparation& prep, part which,
                      const std::string& ns, bool cuda,
                      const std::vector<std::optional<library_call>>& calls) {
  auto runs = [&](std::size_t k) { return which == part::whole || prep.in_prepare[k] == (which == part::weights); };
  auto bound = [&](const buffer& b) {
    return b.role != buffer::kind::temporary && (which == part::whole || b.weight == (which == part::weights));
  };
  std::vector<bool> used(plan.buffers.size(), false), produced(plan.buffers.size(), false);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    if (!runs(k)) continue;
    for (auto id : plan.steps[k].reads) used[id] = true;
    used[plan.steps[k].target] = produced[plan.steps[k].target] = true;
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
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    const buffer& b = plan.buffers[id];
    if (b.role != buffer::kind::temporary || !produced[id] || kept(id)) continue;
    std::string t = element_text(b.type), n = int_text(b.count());
    // `store_` never begins a buffer variable (they all begin with `t_`): no name clash.
    std::string store = "store_" + b.variable;
    w.line(cuda ? "ein::runtime::device_buffer<" + t + "> " + store + "(" + n + ", s);"
                : "ein::runtime::host_buffer<" + t + "> " + store + "(" + n + ");");
    w.line(t + "* " + b.variable + " = " + store + ".data();");
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
  std::vector<std::optional<library_call>> running(calls.size());
  for (std::size_t k = 0; k < calls.size(); ++k)
    if (runs(k)) running[k] = calls[k];
  if (cuda && any_gemm_call(running)) {
    w.line("const cublasHandle_t ein_cublas = " + ns + "::cublas_handle();");
    w.line("EIN_CUBLAS_CHECK(cublasSetStream(ein_cublas, s));");
  }
  if (cuda && any_convolution_call(running)) {
    w.line("const cudnnHandle_t ein_cudnn = " + ns + "::cudnn_handle();");
    w.line("EIN_CUDNN_CHECK(cudnnSetStream(ein_cudnn, s));");
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    if (!runs(k)) continue;
    auto& s = plan.steps[k];
    // run() binds the weights on every call, so it runs their transforms every time too.
    if (which == part::whole && k == 0 && s.weight_only)
      w.comment("[weight transform]: steps that read weights only (prepare() runs them once)");
    if (which == part::whole && k > 0 && plan.steps[k - 1].weight_only && !s.weight_only)
      w.comment("steps that read the inputs");
    if (cuda && calls[k] && calls[k]->convolution())
      emit_cudnn_call(w, s, plan, *calls[k], ns, "ein_cudnn");
    else if (cuda && calls[k])
      emit_cublas_call(w, s, plan, *calls[k], "ein_cublas");
    else if (cuda)
      emit_cuda_launch(w, s, plan, ns);
    else
      w.line(ns + "::" + s.function + "_host(" + arguments_text(s, plan) + ");");
  }
  // The storage is then ready for work on any stream.
  if (cuda && which == part::weights) w.line("EIN_CUDA_CHECK(cudaStreamSynchronize(s));");
}

}  // namespace detail

/// The name of a CUDA entry point of a plan, `<what>_cuda_<key>` (`what`: run, prepare,
/// run_prepared, allocate_prepared, free_prepared): it carries the program key, so a header and
/// a CUDA source generated for different programs do not link together.
inline std::string cuda_entry(const options& o, const std::string& what = "run") {
  return what + "_cuda_" + detail::hex_text(o.key).substr(2, 16);
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
         "const void* storage, const ein::runtime::bindings& b, ein::runtime::stream s)";
}

// The members of the plan specialization that prepare a plan (ein::prepare calls them).
inline void emit_prepared_members(writer& w, const layout& plan, const preparation& prep,
                                  const options& o, const std::string& ns,
                                  const std::vector<std::optional<library_call>>& calls) {
  const bool cuda = o.target == backend::cuda;
  w.comment("A prepared plan (ein::prepare): prepare() binds the weights only, runs the weight\n"
            "transforms once and keeps, in prepared_bytes of storage (" +
            std::string(cuda ? "device" : "host") + " memory from allocate_prepared()),\n"
            "what the other steps read; run_prepared() binds inputs and outputs and runs the other steps.");
  w.line("static constexpr std::size_t prepared_bytes = " + int_text(prep.bytes) + ";");
  if (cuda) {
    w.open("static void* allocate_prepared()");
    w.line("return " + ns + "::" + cuda_entry(o, "allocate_prepared") + "();");
    w.close();
    w.open("static void free_prepared(void* storage) noexcept");
    w.line(ns + "::" + cuda_entry(o, "free_prepared") + "(storage);");
    w.close();
    w.comment("Device pointers; prepare() returns when the storage is ready, run_prepared() is\n"
              "asynchronous on stream s.");
    w.open("static void prepare(const bindings& b, void* storage, stream s = nullptr)");
    w.line(ns + "::" + cuda_entry(o, "prepare") + "(b, storage, s);");
    w.close();
    w.open("static void run_prepared(const void* storage, const bindings& b, stream s = nullptr)");
    w.line(ns + "::" + cuda_entry(o, "run_prepared") + "(storage, b, s);");
    w.close();
    return;
  }
  w.open("static void* allocate_prepared()");
  w.line("return ein::runtime::allocate_host_storage(prepared_bytes);");
  w.close();
  w.open("static void free_prepared(void* storage) noexcept");
  w.line("ein::runtime::free_host_storage(storage);");
  w.close();
  w.comment("Host pointers; the stream is not used.");
  w.open("static void prepare(const bindings& b, [[maybe_unused]] void* storage, [[maybe_unused]] stream s = nullptr)");
  emit_body(w, plan, prep, part::weights, ns, false, calls);
  w.close();
  w.open("static void run_prepared([[maybe_unused]] const void* storage, const bindings& b, "
         "[[maybe_unused]] stream s = nullptr)");
  emit_body(w, plan, prep, part::rest, ns, false, calls);
  w.close();
}

}  // namespace detail

/// The generated header of `p`, for the host compiler: includes the model and runtime headers
/// only; a static_assert rejects it when `ein::program_key(object)` no longer equals `o.key`
/// (the model changed); one host function per step in namespace `ein_generated::<name>`; and
/// `ein::runtime::plan<decltype(object)>` with run(), run_host() and the members of a prepared
/// plan (prepared_bytes, allocate_prepared(), free_prepared(), prepare(), run_prepared()). For
/// the cuda backend run() and the prepared members call the entry points defined in the CUDA
/// source (emit_cuda_source), so the model and the front end never go through nvcc. The same
/// program and options give the same bytes.
inline std::string emit_header(const ir::program& p, const options& o) {
  layout plan = make_layout(p);
  const preparation prep = make_preparation(plan);
  const bool cuda = o.target == backend::cuda;
  // The cuda backend's run_host() keeps the loops: its consumers need no CBLAS.
  auto calls = cuda ? find_library_calls(plan, false) : library_calls(plan, o);
  const std::string file = o.name + ".hpp", ns = "ein_generated::" + o.name;
  const std::string object = o.object.rfind("::", 0) == 0 ? o.object : "::" + o.object;
  writer w;
  w.comment(file + ": the plan of " + o.object + ", generated by ein (ein_generate) from " +
            o.model_header + ".\nDo not edit: it is rewritten when the model changes." +
            (cuda ? "\nIts CUDA kernels are in " + o.name + ".cu." : ""));
  w.comment("\n" + describe(p, o));
  w.line("#pragma once");
  w.line();
  if (any_library_call(calls)) {
    w.line("#include <cblas.h>");
    w.line();
  }
  w.line("#include <cstddef>");
  w.line("#include <cstdint>");
  if (!cuda) w.line("#include <cstring>");
  w.line("#include <string_view>");
  w.line("#include <type_traits>");
  w.line();
  w.line("#include \"" + o.model_header + "\"");
  w.line("#include \"ein/runtime/bindings.hpp\"");
  w.line("#include \"ein/runtime/eoperator.hpp\"");
  w.line("#include \"ein/runtime/plan.hpp\"");
  w.line();
  w.line("static_assert(ein::program_key(" + object + ") == " + detail::hex_text(o.key) + ",");
  w.line("              \"ein: generated header " + file + " is stale: the program " + o.object +
         " changed since it was generated; rebuild to re-run the search\");");
  w.line();
  w.open_namespace(ns);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    w.line();
    w.comment(plan.buffers[s.target].name + " = " + ir::to_string(*s.value) +
              (calls[k] ? "\nas " + calls[k]->str() : ""));
    if (calls[k])
      emit_cblas_function(w, s, plan, *calls[k]);
    else
      emit_host_function(w, s, plan, o.accumulate);
  }
  if (cuda) {
    w.line();
    w.comment("Defined in " + o.name + ".cu: check the bindings and launch the kernels; the\n"
              "storage of a prepared plan.");
    w.line("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s);");
    w.line(detail::prepare_signature(o) + ";");
    w.line(detail::run_prepared_signature(o) + ";");
    w.line("void* " + cuda_entry(o, "allocate_prepared") + "();");
    w.line("void " + cuda_entry(o, "free_prepared") + "(void* storage) noexcept;");
  }
  w.close_namespace(ns);
  w.line();
  w.open_namespace("ein::runtime");
  w.line("template <>");
  w.open("struct plan<std::remove_cvref_t<decltype(" + object + ")>>");
  w.line("static constexpr bool generated = true;");
  w.line(std::string("static constexpr backend target = backend::") + name(o.target) + ";");
  w.line("static constexpr std::string_view name = " + detail::string_literal(o.name) + ";");
  w.line("static constexpr std::string_view description =");
  w.line("    " + detail::string_literal(describe(p, o)) + ";");
  w.comment("The largest max_rel_err against the interpreter that a check of run() should allow.");
  w.line("static constexpr double tolerance = " + double_text(tolerance(plan, library_calls(plan, o), o)) + ";");
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

/// The CUDA source of the cuda backend, for nvcc: one kernel per step and the entry points that
/// the header's plan calls (binding checks, stream-ordered temporaries, checked launches; the
/// prepared plan's storage, prepare and run). It includes runtime headers only.
/// @pre o.target == backend::cuda
inline std::string emit_cuda_source(const ir::program& p, const options& o) {
  layout plan = make_layout(p);
  auto calls = library_calls(plan, o);
  const bool cublas = any_gemm_call(calls), cudnn = any_convolution_call(calls);
  const std::string ns = "ein_generated::" + o.name;
  writer w;
  w.comment(o.name + ".cu: the CUDA kernels of the plan of " + o.object +
            ", generated by ein (ein_generate).\nDo not edit: it is rewritten with " + o.name + ".hpp.");
  w.line("#include <cstddef>");
  w.line("#include <cstdint>");
  w.line();
  w.line("#include \"ein/runtime/bindings.hpp\"");
  if (cublas) w.line("#include \"ein/runtime/cublas.hpp\"");
  w.line("#include \"ein/runtime/cuda.hpp\"");
  if (cudnn) w.line("#include \"ein/runtime/cudnn.hpp\"");
  w.line("#include \"ein/runtime/eoperator.hpp\"");
  w.line("#include \"ein/runtime/plan.hpp\"");
  w.line();
  w.open_namespace(ns);
  if (cublas) {
    w.line();
    w.comment("The plan's cuBLAS handle: created on its first run, destroyed at exit.");
    w.open("static cublasHandle_t cublas_handle()");
    w.line("static const ein::runtime::cublas_handle handle;");
    w.line("return handle.get();");
    w.close();
  }
  if (cudnn) {
    w.line();
    w.comment("The plan's cuDNN handle, shared by its convolution steps: created on its first run,\n"
              "destroyed at exit.");
    w.open("static cudnnHandle_t cudnn_handle()");
    w.line("static const ein::runtime::cudnn_handle handle;");
    w.line("return handle.get();");
    w.close();
    for (std::size_t k = 0; k < plan.steps.size(); ++k) {
      if (!calls[k] || !calls[k]->convolution()) continue;
      auto& s = plan.steps[k];
      w.line();
      w.comment(plan.buffers[s.target].name + " = " + calls[k]->str() +
                ": descriptors, algorithm and workspace, chosen on the first run.");
      library::emit_cudnn_state(w, calls[k]->op, cudnn_state_function(s), "cudnn_handle()", calls[k]->tf32);
    }
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    if (calls[k]) continue;  // a library call: no kernel
    w.line();
    w.comment(plan.buffers[s.target].name + " = " + ir::to_string(*s.value));
    emit_cuda_kernel(w, s, plan, o.accumulate);
  }
  const preparation prep = make_preparation(plan);
  const std::string unused = prep.bytes ? "" : "[[maybe_unused]] ";
  w.line();
  w.open("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s)");
  detail::emit_body(w, plan, prep, detail::part::whole, ns, true, calls);
  w.close();
  w.line();
  w.comment("A prepared plan: the weight transforms once, into the storage; then the other steps.");
  w.open(detail::prepare_signature(o, unused));
  detail::emit_body(w, plan, prep, detail::part::weights, ns, true, calls);
  w.close();
  w.open(detail::run_prepared_signature(o, unused));
  detail::emit_body(w, plan, prep, detail::part::rest, ns, true, calls);
  w.close();
  w.open("void* " + cuda_entry(o, "allocate_prepared") + "()");
  w.line("return ein::runtime::allocate_device_storage(" + int_text(prep.bytes) + ");");
  w.close();
  w.open("void " + cuda_entry(o, "free_prepared") + "(void* storage) noexcept");
  w.line("ein::runtime::free_device_storage(storage);");
  w.close();
  w.close_namespace(ns);
  return w.str();
}

}  // namespace ein::codegen
