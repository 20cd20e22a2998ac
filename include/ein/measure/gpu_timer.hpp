// The GPU timer of the measured cost model: library operators through the cuBLAS and cuDNN calls
// generated plans make, eOperators as the kernels ein's CUDA emitter writes, compiled with NVRTC.
// Needs the CUDA toolkit (cudart, cuBLAS, NVRTC; cuDNN with EIN_HAVE_CUDNN); the driver API is
// reached through the runtime (cudaGetDriverEntryPointByVersion), so no libcuda is linked and a
// program using it starts on machines without a GPU driver.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ein/codegen/cuda_kernel.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/library_step.hpp"
#include "ein/cost/gpu_environment.hpp"
#include "ein/cost/measured.hpp"
#include "ein/eval/random.hpp"
#include "ein/half.hpp"
#include "ein/measure/cuda_launcher.hpp"
#include "ein/measure/median.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/runtime/cublas.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "ein/tune/cuda_schedule.hpp"
#if defined(EIN_HAVE_CUDNN)
#include "ein/runtime/cudnn.hpp"
#endif

namespace ein::measure {

/// Whether the CUDA runtime finds a device to time on; `why` (when given) gets the reason when not:
/// none here, or a broken CUDA setup (runtime::query_devices).
inline bool gpu_present(std::string* why = nullptr) {
  const runtime::device_query q = runtime::query_devices();
  if (why) *why = q.why;
  return q.presence == runtime::device_presence::present;
}

/// The name of CUDA device `device` ("NVIDIA H100 80GB HBM3").
inline std::string gpu_name(int device = 0) {
  cudaDeviceProp p{};
  EIN_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  return p.name;
}

/// An eOperator compiled to PTX: the text and the name of its kernel entry in it.
struct compiled_eoperator {
  std::string ptx, entry, source;
};

namespace detail {

// The folder holding `ein/`: this header is <dir>/ein/measure/gpu_timer.hpp (CMake passes ein's
// include folder as an absolute path, in the source tree and once installed).
inline std::string ein_include_dir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
}

inline void nvrtc_check(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS) throw user_error(std::string("NVRTC call ") + call + " failed: " + nvrtcGetErrorString(r));
}

}  // namespace detail

/// The CUDA source of one eOperator (flat_eoperator of `s`, as its own program, eoperator_program):
/// ein/runtime/eoperator.hpp and the kernel emit_cuda_kernel writes for it (computing as
/// `accumulate` asks, under `point` of its CUDA space; none: today's fixed one), with external
/// linkage so that the driver API finds it. `kernel` gets its name.
inline std::string eoperator_cuda_source(const ir::scope& s, std::string* kernel = nullptr,
                                         codegen::accumulation accumulate = codegen::accumulation::element,
                                         const std::optional<tune::cuda_schedule>& point = std::nullopt) {
  auto plan = codegen::make_named_plan(cost::eoperator_program(s));
  if (plan.steps.size() != 1) throw internal_error("eoperator_cuda_source: an eOperator is one step");
  codegen::writer w;
  codegen::emit_cuda_kernel(w, plan.steps[0], plan, accumulate, point);
  std::string text = w.str();
  const std::string internal = "static __global__ void __launch_bounds__";
  auto at = text.find(internal);
  if (at == std::string::npos) throw internal_error("eoperator_cuda_source: no kernel in the emitted text");
  text.replace(at, internal.size(), "__global__ void __launch_bounds__");
  if (kernel) *kernel = plan.steps[0].function + "_kernel";
  return "#include \"ein/runtime/eoperator.hpp\"\n\n" + text;
}

/// Compiles eOperator `s` to PTX for virtual architecture `arch` ("compute_90") with NVRTC, as
/// eoperator_cuda_source writes it under `point` computing as `accumulate` asks; no device is
/// needed. NVRTC has no C++ standard library: the host headers that
/// ein/runtime/eoperator.hpp includes are given as stand-ins declaring what it uses of them (its
/// host-only functions are parsed, never compiled for the device).
/// Throws user_error with NVRTC's log when the source does not compile.
inline compiled_eoperator compile_eoperator(const ir::scope& s, const std::string& arch,
                                            const std::string& include_dir = detail::ein_include_dir(),
                                            const std::optional<tune::cuda_schedule>& point = std::nullopt,
                                            codegen::accumulation accumulate = codegen::accumulation::element) {
  compiled_eoperator out;
  std::string kernel;
  out.source = eoperator_cuda_source(s, &kernel, accumulate, point);
  const char* headers[] = {
      "",  // ::exp and ::tanh are NVRTC built-ins
      "namespace std { using size_t = decltype(sizeof(0)); using ptrdiff_t = decltype((int*)0 - (int*)0); }\n",
      "namespace std { using int64_t = long long; using uint64_t = unsigned long long; "
      "using uintptr_t = unsigned long long; using uint16_t = unsigned short; using uint32_t = unsigned; }\n",
      "",  // NVRTC declares the aligned operator new and delete itself
      "namespace std { template <class T> class allocator; template <class T, class A = allocator<T>> class vector; }\n",
      ""};  // memcpy serves the host only
  const char* names[] = {"math.h", "cstddef", "cstdint", "new", "vector", "cstring"};
  nvrtcProgram p = nullptr;
  detail::nvrtc_check(nvrtcCreateProgram(&p, out.source.c_str(), "ein_eoperator.cu", 6, headers, names),
                      "nvrtcCreateProgram");
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owned(&p, [](nvrtcProgram* q) { nvrtcDestroyProgram(q); });
  const std::string expression = "&" + kernel;
  detail::nvrtc_check(nvrtcAddNameExpression(p, expression.c_str()), "nvrtcAddNameExpression");
  const std::string arch_option = "--gpu-architecture=" + arch, include = "--include-path=" + include_dir;
  // NVRTC compiles no host code: unannotated (host) functions of the header become device ones.
  // C++20 as nvcc compiles plans (ein/half.hpp's conversions are constexpr with a device path).
  const char* options[] = {arch_option.c_str(), include.c_str(), "--std=c++20", "--device-as-default-execution-space"};
  nvrtcResult r = nvrtcCompileProgram(p, 4, options);
  if (r != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(p, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(p, log.data());
    throw user_error("NVRTC cannot compile the eOperator kernel " + kernel + ": " + log + "\nsource:\n" + out.source);
  }
  const char* lowered = nullptr;
  detail::nvrtc_check(nvrtcGetLoweredName(p, expression.c_str(), &lowered), "nvrtcGetLoweredName");
  out.entry = lowered;
  std::size_t size = 0;
  detail::nvrtc_check(nvrtcGetPTXSize(p, &size), "nvrtcGetPTXSize");
  out.ptx.assign(size, '\0');
  detail::nvrtc_check(nvrtcGetPTX(p, out.ptx.data()), "nvrtcGetPTX");
  return out;
}

/// How the GPU timer measures: `warmup` runs (the first timed), then the median of `runs` runs
/// each timed with CUDA events; a kernel whose first run takes over `slow_seconds` (a naive
/// eOperator of a large convolution, say) gets no more warm-up and `slow_runs` runs. Kernels
/// whose operands need more than `memory_fraction` of the free device memory are not timed.
/// Library calls run as plans generated with ein::plan::program_plan::tf32 = `tf32` make them.
struct gpu_timer_options {
  int warmup = 3;
  int runs = 15;
  double slow_seconds = 0.02;
  int slow_runs = 3;
  double memory_fraction = 0.5;
  bool tf32 = false;
};

/// Times kernels on CUDA device `device` (serialized by the measured model). Library operators
/// run through the calls the generated CUDA code makes (codegen/library/cublas.hpp, cudnn.hpp):
/// GEMMs that plan::blas_accepts as one cublasGemmStridedBatchedEx, convolutions that
/// cuDNN runs as matched (plan::cudnn_accepts, with EIN_HAVE_CUDNN) through runtime::cudnn_convolution
/// and the algorithm its heuristics choose. Other library operators (G2BMM, GBMM, elementwise)
/// are not library calls of the cuda backend: the timer returns nothing for them, and the
/// search prices them as the eOperators they become. eOperators run as compile_eoperator's PTX
/// with the grid and blocks of their schedule (codegen::schedule), as generated plans launch
/// them. Inputs are random non-zero values of each operand's type: float, double, ein::half or
/// ein::bfloat16 (16-bit calls as plans make them, accumulated in float; 16-bit eOperators load
/// and store 16 bits through ein/half.hpp, which NVRTC compiles as it is). A kernel that fails
/// (out of memory, a library refusal) is reported on stderr and not timed. The device's memory
/// pool keeps what it frees (runtime::keep_pool_memory), as in the benchmarks.
class gpu_timer final : public cost::timer {
 public:
  explicit gpu_timer(int device = 0, gpu_timer_options o = {})
      : device_(device), options_(o), launcher_(device, "ein: cost") {
    name_ = gpu_name(device_);
    runtime::keep_pool_memory(device_);
  }

  std::string device() const override { return name_; }
  /// The runs the last median was taken over.
  int runs() const override { return last_runs_; }
  cost::environment setup() const override { return cost::gpu_environment(device_); }

  std::optional<double> seconds(const cost::workload& w) override {
    try {
      // Search threads take turns here: each binds the device's primary context first.
      EIN_CUDA_CHECK(cudaSetDevice(device_));
      if (w.kind == cost::workload::engine::library && w.instance) return time_library(*w.instance);
      if (w.kind == cost::workload::engine::eoperator && w.eop) return time_eoperator(*w.eop);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ein: cost: kernel not timed, priced by the fallback model: %s\n", e.what());
      cudaGetLastError();
    }
    return std::nullopt;
  }

 private:
  // A device allocation of random non-zero values of `type` (outputs too: the kernel overwrites
  // them); 16-bit values are the rounded floats.
  class device_array {
   public:
    device_array(std::int64_t elements, ir::dtype type, std::uint64_t seed) {
      const auto n = static_cast<std::size_t>(std::max<std::int64_t>(elements, 1));
      eval::random_stream rng(seed);
      switch (type) {
        case ir::dtype::f32: fill<float>(n, rng); break;
        case ir::dtype::f64: fill<double>(n, rng); break;
        case ir::dtype::f16: fill<ein::half>(n, rng); break;
        case ir::dtype::bf16: fill<ein::bfloat16>(n, rng); break;
      }
    }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    ~device_array() { cudaFree(data_); }
    void* data() const { return data_; }
    // The element `offset` elements into the array.
    void* at(std::int64_t offset, ir::dtype type) const {
      return static_cast<char*>(data_) + offset * ir::element_bytes(type);
    }

   private:
    template <class T>
    void fill(std::size_t n, eval::random_stream& rng) {
      std::vector<T> host(n);
      for (auto& x : host) x = T(static_cast<float>(rng.uniform()));
      EIN_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T)));
      EIN_CUDA_CHECK(cudaMemcpy(data_, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }

    void* data_ = nullptr;
  };

  bool fits(double bytes) const {
    std::size_t free = 0, total = 0;
    EIN_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return bytes <= options_.memory_fraction * static_cast<double>(free);
  }

  // The median of options_.runs timed runs of `run` on the timer's stream, after the warm-up;
  // of options_.slow_runs for a kernel whose first run takes over options_.slow_seconds.
  template <class Run>
  double median_of(Run&& run) {
    auto timed = [&] { return launcher_.seconds(run); };
    bool slow = timed() > options_.slow_seconds;
    for (int i = 1; i < options_.warmup && !slow; ++i) run();
    EIN_CUDA_CHECK(cudaStreamSynchronize(launcher_.stream()));
    last_runs_ = slow ? options_.slow_runs : options_.runs;
    std::vector<double> t;
    for (int i = 0; i < last_runs_; ++i) t.push_back(timed());
    return median(std::move(t));
  }
  std::optional<double> time_library(const match::instance& op) {
    bool gemm = std::holds_alternative<match::gemm_attrs>(op.attrs);
    bool conv = std::holds_alternative<match::conv_attrs>(op.attrs);
    if (gemm && !plan::blas_accepts(op.gemm())) return std::nullopt;
#if defined(EIN_HAVE_CUDNN)
    if (conv && !plan::cudnn_accepts(op)) return std::nullopt;
#else
    if (conv) return std::nullopt;
#endif
    if (!gemm && !conv) return std::nullopt;
    double bytes = 0;
    for (auto& o : op.inputs) bytes += static_cast<double>(o.elements) * ir::element_bytes(op.type);
    bytes += static_cast<double>(op.output.elements) * ir::element_bytes(op.type);
    if (!fits(bytes)) return std::nullopt;
    std::vector<std::unique_ptr<device_array>> in;
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
      in.push_back(std::make_unique<device_array>(op.inputs[i].elements, op.type, 17 + i));
    device_array out(op.output.elements, op.type, 16);
    void* a = in[0]->at(op.inputs[0].offset, op.type);
    void* b = in[1]->at(op.inputs[1].offset, op.type);
    void* c = out.at(op.output.offset, op.type);
    if (gemm) return time_gemm(op, a, b, c);
#if defined(EIN_HAVE_CUDNN)
    return time_convolution(op, a, b, c);
#else
    return std::nullopt;
#endif
  }

  // codegen/library/cublas.hpp's call: row-major C = op(A)·op(B) as column-major Cᵀ = op(B)ᵀ·op(A)ᵀ.
  double time_gemm(const match::instance& op, void* a, void* b, void* c) {
    if (!cublas_) cublas_ = std::make_unique<runtime::cublas_handle>();
    EIN_CUBLAS_CHECK(cublasSetStream(cublas_->get(), launcher_.stream()));
    auto& g = op.gemm();
    // float scalars and CUBLAS_COMPUTE_32F for float and 16-bit data, as emit_cublas writes them
    bool f32 = op.type != ir::dtype::f64;
    cudaDataType data = op.type == ir::dtype::f16    ? CUDA_R_16F
                        : op.type == ir::dtype::bf16 ? CUDA_R_16BF
                        : f32                        ? CUDA_R_32F
                                                     : CUDA_R_64F;
    cublasComputeType_t compute = f32 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_64F;
    if (op.type == ir::dtype::f32 && options_.tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    auto op_of = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    float alpha_f = static_cast<float>(g.alpha), beta_f = 0;
    double alpha_d = g.alpha, beta_d = 0;
    const void* alpha = f32 ? static_cast<const void*>(&alpha_f) : &alpha_d;
    const void* beta = f32 ? static_cast<const void*>(&beta_f) : &beta_d;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    return median_of([&] {
      EIN_CUBLAS_CHECK(cublasGemmStridedBatchedEx(cublas_->get(), op_of(g.trans_b), op_of(g.trans_a), i(g.n), i(g.m),
                                                  i(g.k), alpha, b, data, i(g.ldb), g.stride_b, a, data, i(g.lda),
                                                  g.stride_a, beta, c, data, i(g.ldc), g.stride_c, i(g.batch), compute,
                                                  CUBLAS_GEMM_DEFAULT));
    });
  }

#if defined(EIN_HAVE_CUDNN)
  // codegen/library/cudnn.hpp's state (emit_cudnn_state) and call (emit_cudnn_run).
  double time_convolution(const match::instance& op, void* in, void* wt, void* out) {
    if (!cudnn_) cudnn_ = std::make_unique<runtime::cudnn_handle>();
    cudnnHandle_t h = cudnn_->get();
    EIN_CUDNN_CHECK(cudnnSetStream(h, launcher_.stream()));
    auto& a = op.conv();
    bool forward = !a.backward_data;
    runtime::cudnn_convolution c(h, codegen::library::geometry(op, options_.tf32));
    float alpha_f = static_cast<float>(a.alpha), beta_f = 0;
    double alpha_d = a.alpha, beta_d = 0;
    bool f32 = op.type != ir::dtype::f64;  // cuDNN's scalars: float for float and 16-bit data
    const void* alpha = f32 ? static_cast<const void*>(&alpha_f) : &alpha_d;
    const void* beta = f32 ? static_cast<const void*>(&beta_f) : &beta_d;
    return median_of([&] {
      if (forward)
        EIN_CUDNN_CHECK(cudnnConvolutionForward(h, alpha, c.x, in, c.w, wt, c.conv, c.forward_algo, c.workspace,
                                                c.workspace_size, beta, c.y, out));
      else
        EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(h, alpha, c.w, wt, c.y, in, c.conv, c.backward_data_algo,
                                                     c.workspace, c.workspace_size, beta, c.x, out));
    });
  }
#endif

  std::optional<double> time_eoperator(const ir::scope& s) {
    auto program = cost::eoperator_program(s);
    auto plan = codegen::make_named_plan(program);
    auto& step = plan.steps.at(0);
    const codegen::buffer& target = plan.buffers[step.target];
    if (codegen::empty_box(s.traversal)) return std::nullopt;  // nothing runs
    double bytes = 0;
    for (auto& b : plan.buffers) bytes += static_cast<double>(b.count()) * ir::element_bytes(b.type);
    if (!fits(bytes)) return std::nullopt;
    auto compiled = compile_eoperator(s, launcher_.arch());
    const loaded_kernel kernel = launcher_.load(compiled.ptx, compiled.entry, codegen::schedule(step, plan));
    std::vector<std::unique_ptr<device_array>> arrays;
    std::vector<void*> pointers;
    std::uint64_t seed = 31;
    for (auto id : step.reads) {
      arrays.push_back(std::make_unique<device_array>(plan.buffers[id].count(), plan.buffers[id].type, seed++));
      pointers.push_back(arrays.back()->data());
    }
    arrays.push_back(std::make_unique<device_array>(target.count(), target.type, seed));
    pointers.push_back(arrays.back()->data());
    std::vector<void*> args;
    for (auto& p : pointers) args.push_back(&p);
    return median_of([&] { launcher_.launch(kernel, args); });
  }

  int device_;
  gpu_timer_options options_;
  int last_runs_ = 0;
  cuda_launcher launcher_;
  std::string name_;
  std::unique_ptr<runtime::cublas_handle> cublas_;
#if defined(EIN_HAVE_CUDNN)
  std::unique_ptr<runtime::cudnn_handle> cudnn_;
#endif
};

}  // namespace ein::measure
