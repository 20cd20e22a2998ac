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
  return find_library_calls(plan, o.library_calls, o.target == backend::cuda && o.cudnn_calls);
}

/// The plan in words, one line per step, e.g.
/// `conv = eOperator L_{n:[0,1), ...} Σ_{...} A[n, h + r - 1, w + s - 1, c] * K[r, s, f, c]` or
/// `xw = library matmul(A=x+0, B=W+0) batch=1 m=64 n=128 k=256 ...`. Weight transforms (steps
/// that read weights only; run() computes them first) are marked `[weight transform]`.
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

// The body of run()/run_host(): check the bindings, take temporaries, call each step.
// Library steps call the plan's cuBLAS handle `ein_cublas` or cuDNN handle `ein_cudnn` (cuda),
// or their CBLAS host function.
inline void emit_run(writer& w, const layout& plan, const std::string& ns, bool cuda,
                     const std::vector<std::optional<library_call>>& calls) {
  std::string names;
  for (auto& b : plan.buffers)
    if (b.role != buffer::kind::temporary) names += (names.empty() ? "" : ", ") + detail::string_literal(b.name);
  w.line("b.expect_only({" + names + "});");
  for (auto& b : plan.buffers) {
    std::string t = element_text(b.type);
    if (b.role == buffer::kind::input)
      w.line("const " + t + "* " + b.variable + " = b.input<" + t + ">(" +
             string_literal(b.name) + ", " + shape_list(b.shape) + ");");
    else if (b.role == buffer::kind::output)
      w.line(t + "* " + b.variable + " = b.output<" + t + ">(" + string_literal(b.name) + ", " +
             shape_list(b.shape) + ");");
  }
  if (cuda)
    for (auto& b : plan.buffers)
      if (b.role != buffer::kind::temporary)
        w.line("ein::runtime::expect_device_pointer(" + string_literal(b.name) + ", " + b.variable + ");");
  for (auto& b : plan.buffers) {
    if (b.role != buffer::kind::temporary) continue;
    std::string t = element_text(b.type), n = int_text(b.count());
    // `store_` never begins a buffer variable (they all begin with `t_`): no name clash.
    std::string store = "store_" + b.variable;
    w.line(cuda ? "ein::runtime::device_buffer<" + t + "> " + store + "(" + n + ", s);"
                : "ein::runtime::host_buffer<" + t + "> " + store + "(" + n + ");");
    w.line(t + "* " + b.variable + " = " + store + ".data();");
  }
  if (cuda && any_gemm_call(calls)) {
    w.line("const cublasHandle_t ein_cublas = " + ns + "::cublas_handle();");
    w.line("EIN_CUBLAS_CHECK(cublasSetStream(ein_cublas, s));");
  }
  if (cuda && any_convolution_call(calls)) {
    w.line("const cudnnHandle_t ein_cudnn = " + ns + "::cudnn_handle();");
    w.line("EIN_CUDNN_CHECK(cudnnSetStream(ein_cudnn, s));");
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    // Weight values are bound at run time, so their transforms run on every call.
    if (k == 0 && s.weight_only) w.comment("[weight transform]: steps that read weights only");
    if (k > 0 && plan.steps[k - 1].weight_only && !s.weight_only) w.comment("steps that read the inputs");
    if (cuda && calls[k] && calls[k]->convolution())
      emit_cudnn_call(w, s, plan, *calls[k], ns, "ein_cudnn");
    else if (cuda && calls[k])
      emit_cublas_call(w, s, plan, *calls[k], "ein_cublas");
    else if (cuda)
      emit_cuda_launch(w, s, plan, ns);
    else
      w.line(ns + "::" + s.function + "_host(" + arguments_text(s, plan) + ");");
  }
}

}  // namespace detail

/// The name of the CUDA entry point of a plan: it carries the program key, so a header and a
/// CUDA source generated for different programs do not link together.
inline std::string cuda_entry(const options& o) {
  return "run_cuda_" + detail::hex_text(o.key).substr(2, 16);
}

/// The generated header of `p`, for the host compiler: includes the model and runtime headers
/// only; a static_assert rejects it when `ein::program_key(object)` no longer equals `o.key`
/// (the model changed); one host function per step in namespace `ein_generated::<name>`; and
/// `ein::runtime::plan<decltype(object)>` with run() and run_host(). For the cuda backend run()
/// calls the entry point defined in the CUDA source (emit_cuda_source), so the model and the
/// front end never go through nvcc. The same program and options give the same bytes.
inline std::string emit_header(const ir::program& p, const options& o) {
  layout plan = make_layout(p);
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
  w.line("#include <cstdint>");
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
      emit_host_function(w, s, plan);
  }
  if (cuda) {
    w.line();
    w.comment("Defined in " + o.name + ".cu: checks the bindings and launches the kernels.");
    w.line("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s);");
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
  w.line();
  if (cuda) {
    w.comment("Device pointers; asynchronous on stream s.");
    w.open("static void run(const bindings& b, stream s = nullptr)");
    w.line(ns + "::" + cuda_entry(o) + "(b, s);");
    w.close();
    w.comment("Host pointers: the host loops.");
    w.open("static void run_host(const bindings& b)");
    detail::emit_run(w, plan, ns, false, calls);
    w.close();
  } else {
    w.comment("Host pointers; the stream is not used.");
    w.open("static void run(const bindings& b, [[maybe_unused]] stream s = nullptr)");
    detail::emit_run(w, plan, ns, false, calls);
    w.close();
    w.open("static void run_host(const bindings& b)");
    w.line("run(b);");
    w.close();
  }
  w.close(";");
  w.close_namespace("ein::runtime");
  return w.str();
}

/// The CUDA source of the cuda backend, for nvcc: one kernel per step and the entry point that
/// the header's plan calls (binding checks, stream-ordered temporaries, checked launches). It
/// includes runtime headers only.
/// @pre o.target == backend::cuda
inline std::string emit_cuda_source(const ir::program& p, const options& o) {
  layout plan = make_layout(p);
  auto calls = library_calls(plan, o);
  const bool cublas = any_gemm_call(calls), cudnn = any_convolution_call(calls);
  const std::string ns = "ein_generated::" + o.name;
  writer w;
  w.comment(o.name + ".cu: the CUDA kernels of the plan of " + o.object +
            ", generated by ein (ein_generate).\nDo not edit: it is rewritten with " + o.name + ".hpp.");
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
      library::emit_cudnn_state(w, calls[k]->op, cudnn_state_function(s), "cudnn_handle()");
    }
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    if (calls[k]) continue;  // a library call: no kernel
    w.line();
    w.comment(plan.buffers[s.target].name + " = " + ir::to_string(*s.value));
    emit_cuda_kernel(w, s, plan);
  }
  w.line();
  w.open("void " + cuda_entry(o) + "(const ein::runtime::bindings& b, ein::runtime::stream s)");
  detail::emit_run(w, plan, ns, true, calls);
  w.close();
  w.close_namespace(ns);
  return w.str();
}

}  // namespace ein::codegen
