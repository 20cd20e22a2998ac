// The cuda-backend plans of the hand-built programs (headers compiled here by the host compiler,
// kernels by nvcc in codegen_hand_cuda_kernels): where a device exists, each must equal the
// interpreter within the plan's tolerance, also when four threads run it at once, each on a
// stream of its own, and when prepared and captured into a CUDA graph (the library calls with
// their epilogues among them), replayed from two threads at once; with --capture-first, captured
// before any ordinary run.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "codegen/e2e/programs.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/runtime/cublaslt.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/dispatch/run.hpp"
#include "ein_generated/hand_batch_gemm_cuda.hpp"
#include "ein_generated/hand_conv_cudnn_cuda.hpp"
#include "ein_generated/hand_conv_depthwise_cudnn_cuda.hpp"
#include "ein_generated/hand_conv_epilogue_cuda.hpp"
#include "ein_generated/hand_conv_nhwc_cuda.hpp"
#include "ein_generated/hand_conv_transpose_cudnn_cuda.hpp"
#include "ein_generated/hand_elementwise_cuda.hpp"
#include "ein_generated/hand_floordiv_mod_cuda.hpp"
#include "ein_generated/hand_g2bmm_cuda.hpp"
#include "ein_generated/hand_gemm_chain_cuda.hpp"
#include "ein_generated/hand_gemm_epilogue_cuda.hpp"
#include "ein_generated/hand_gemm_f64_cuda.hpp"
#include "ein_generated/hand_matmul_cuda.hpp"
#include "ein_generated/hand_max_pool_cuda.hpp"
#include "ein_generated/hand_min_window_cuda.hpp"
#include "ein_generated/hand_nested_cuda.hpp"
#include "ein_generated/hand_relu_chain_cuda.hpp"
#include "ein_generated/hand_scalar_f64_cuda.hpp"
#include "ein_generated/hand_softmax_cuda.hpp"
#include "ein_generated/hand_two_definitions_cuda.hpp"

namespace {

// A device copy of a tensor's values in its element type (float or double).
struct device_tensor {
  bool f32;
  std::size_t count;
  void* data = nullptr;
  device_tensor(bool is_f32, const std::vector<double>& v) : f32(is_f32), count(v.size()) {
    EIN_CUDA_CHECK(cudaMalloc(&data, count * (f32 ? sizeof(float) : sizeof(double))));
    if (f32) {
      std::vector<float> h(v.begin(), v.end());
      EIN_CUDA_CHECK(cudaMemcpy(data, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    } else {
      EIN_CUDA_CHECK(cudaMemcpy(data, v.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    }
  }
  device_tensor(const device_tensor&) = delete;
  ~device_tensor() { cudaFree(data); }
  void fill(double v) {
    if (f32) {
      std::vector<float> h(count, static_cast<float>(v));
      EIN_CUDA_CHECK(cudaMemcpy(data, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    } else {
      std::vector<double> h(count, v);
      EIN_CUDA_CHECK(cudaMemcpy(data, h.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    }
  }
  bool all_equal(double v) const {
    if (f32) {
      std::vector<float> h(count);
      EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
      return h == std::vector<float>(count, static_cast<float>(v));
    }
    std::vector<double> h(count);
    EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(double), cudaMemcpyDeviceToHost));
    return h == std::vector<double>(count, v);
  }
  ein::runtime::binding bind(const std::string& name) const {
    return f32 ? ein::runtime::binding(name, static_cast<float*>(data))
               : ein::runtime::binding(name, static_cast<double*>(data));
  }
  double error_against(const ein::eval::dense& ref) const {
    if (f32) {
      std::vector<float> h(count);
      EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
      return ein::eval::max_rel_error(std::span<const float>(h), ref);
    }
    std::vector<double> h(count);
    EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(double), cudaMemcpyDeviceToHost));
    return ein::eval::max_rel_error(std::span<const double>(h), ref);
  }
};

bool is_weight(const ein::ir::tensor& t) { return t.role == ein::ir::tensor_role::weight; }
bool any_tensor(const ein::ir::tensor&) { return true; }

// p's tensors (those `wanted`) on the device with their values in `env`, kept in `keep` and
// bound in `items`.
template <class Wanted = bool (*)(const ein::ir::tensor&)>
void upload_tensors(const ein::ir::program& p, const ein::eval::bindings& env,
                    std::vector<std::unique_ptr<device_tensor>>& keep, std::vector<ein::runtime::binding>& items,
                    Wanted wanted = any_tensor) {
  for (auto& t : p.tensors) {
    if (!wanted(t)) continue;
    keep.push_back(std::make_unique<device_tensor>(t.type == ein::ir::dtype::f32, env.at(t.name).data));
    items.push_back(keep.back()->bind(t.name));
  }
}

// A device output of `count` elements for p's output `o`, filled with -7.
std::unique_ptr<device_tensor> output_tensor(const ein::ir::program& p, const std::string& o, std::size_t count) {
  return std::make_unique<device_tensor>(p.find_definition(o)->type == ein::ir::dtype::f32,
                                         std::vector<double>(count, -7.0));
}

template <int Id>
bool check() {
  static_assert(ein::runtime::generated_plan<ein_test::hand_program<Id>>::target == ein::runtime::backend::cuda);
  constexpr ein_test::hand_program<Id> object;
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, 11);
  auto ref = ein::eval::evaluate(p, env);
  std::vector<std::unique_ptr<device_tensor>> keep;
  std::vector<ein::runtime::binding> items;
  upload_tensors(p, env, keep, items);
  std::size_t first_output = keep.size();
  for (auto& o : p.outputs) {
    keep.push_back(output_tensor(p, o, ref.at(o).data.size()));
    items.push_back(keep.back()->bind(o));
  }
  ein::run(object, ein::runtime::bindings(items));
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  bool ok = true;
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    double err = keep[first_output + i]->error_against(ref.at(p.outputs[i]));
    bool pass = err <= ein::runtime::generated_plan<ein_test::hand_program<Id>>::tolerance;
    std::printf("%-16s %-4s max_rel_err=%.3g %s\n", p.name.c_str(), p.outputs[i].c_str(), err,
                pass ? "ok" : "FAILED");
    ok = ok && pass;
  }
  return ok;
}

template <int... Id>
bool check_all(std::integer_sequence<int, Id...>) {
  return (check<Id>() & ...);
}

// Runs at once: 4 threads, each with a non-blocking stream and outputs of its own, run the plan
// 10 times on shared inputs, all in flight together; every output still equals the interpreter
// (a plan's cuBLAS and cuDNN handles and cuDNN workspaces are per stream: runtime::per_stream).
template <int Id>
bool check_streams() {
  constexpr ein_test::hand_program<Id> object;
  constexpr int threads = 4, runs = 10;
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, 13);
  auto ref = ein::eval::evaluate(p, env);
  std::vector<std::unique_ptr<device_tensor>> inputs;
  std::vector<ein::runtime::binding> shared;
  upload_tensors(p, env, inputs, shared);
  std::vector<std::vector<std::unique_ptr<device_tensor>>> outputs(threads);
  for (auto& mine : outputs)
    for (auto& o : p.outputs) mine.push_back(output_tensor(p, o, ref.at(o).data.size()));
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        cudaStream_t s = nullptr;
        EIN_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        auto items = shared;
        for (std::size_t i = 0; i < p.outputs.size(); ++i) items.push_back(outputs[t][i]->bind(p.outputs[i]));
        ein::runtime::bindings b(items);
        for (int k = 0; k < runs; ++k) ein::run(object, b, s);
        EIN_CUDA_CHECK(cudaStreamSynchronize(s));
        EIN_CUDA_CHECK(cudaStreamDestroy(s));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s, thread %d: %s\n", p.name.c_str(), t, e.what());
        failed = true;
      }
    });
  for (auto& th : pool) th.join();
  bool ok = !failed;
  for (int t = 0; t < threads; ++t)
    for (std::size_t i = 0; i < p.outputs.size(); ++i) {
      double err = outputs[t][i]->error_against(ref.at(p.outputs[i]));
      if (!(err <= ein::runtime::generated_plan<ein_test::hand_program<Id>>::tolerance)) {
        std::printf("%s %s on stream %d of %d at once: max_rel_err=%.3g FAILED\n", p.name.c_str(),
                    p.outputs[i].c_str(), t, threads, err);
        ok = false;
      }
    }
  return ok;
}

template <int... Id>
bool check_all_streams(std::integer_sequence<int, Id...>) {
  return (check_streams<Id>() & ...);
}

// A prepared run captured into a CUDA graph (ein::prepared::capture) writes nothing until it is
// replayed; a replay equals the interpreter; and so do two replays from two threads at once, on
// streams of their own (replays of one graph take its lock, so that its destructor waits for the
// last one).
template <int Id>
bool check_capture() {
  constexpr ein_test::hand_program<Id> object;
  const double tolerance = ein::runtime::generated_plan<ein_test::hand_program<Id>>::tolerance;
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, 14);
  auto ref = ein::eval::evaluate(p, env);
  std::vector<std::unique_ptr<device_tensor>> weights, others;
  std::vector<ein::runtime::binding> weight_items, items;
  upload_tensors(p, env, weights, weight_items, is_weight);
  upload_tensors(p, env, others, items, std::not_fn(is_weight));
  std::vector<std::unique_ptr<device_tensor>> outputs;
  for (auto& o : p.outputs) {
    outputs.push_back(output_tensor(p, o, ref.at(o).data.size()));
    items.push_back(outputs.back()->bind(o));
  }
  auto prepared = ein::prepare(object, ein::runtime::bindings(weight_items));
  bool ok = true;
  const auto expect_outputs = [&](const char* what) {
    for (std::size_t i = 0; i < p.outputs.size(); ++i) {
      double err = outputs[i]->error_against(ref.at(p.outputs[i]));
      if (!(err <= tolerance)) {
        std::printf("%s %s, %s: max_rel_err=%.3g FAILED\n", p.name.c_str(), p.outputs[i].c_str(), what, err);
        ok = false;
      }
    }
  };
  {
    auto graph = prepared.capture(ein::runtime::bindings(items));
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < p.outputs.size(); ++i)
      if (!outputs[i]->all_equal(-7.0)) {
        std::printf("%s %s: the capture wrote it FAILED\n", p.name.c_str(), p.outputs[i].c_str());
        ok = false;
      }
    graph.replay();
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    expect_outputs("replayed");
    for (auto& o : outputs) o->fill(-7.0);
    std::atomic<bool> failed{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < 2; ++t)
      pool.emplace_back([&] {
        try {
          cudaStream_t s = nullptr;
          EIN_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
          graph.replay(s);
          EIN_CUDA_CHECK(cudaStreamSynchronize(s));
          EIN_CUDA_CHECK(cudaStreamDestroy(s));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "%s, a replay: %s\n", p.name.c_str(), e.what());
          failed = true;
        }
      });
    for (auto& th : pool) th.join();
    ok = ok && !failed;
    expect_outputs("replayed from two threads at once");
  }  // the graph goes before the prepared plan whose storage it reads
  return ok;
}

template <int... Id>
bool check_all_captures(std::integer_sequence<int, Id...>) {
  return (check_capture<Id>() & ...);
}

// cuBLASLt's algorithms are chosen per alignment of a product's operands: the largest power of
// two up to 256 dividing every non-null address.
bool check_alignment() {
  using ein::runtime::cublaslt_product;
  const auto at = [](std::uintptr_t a) { return reinterpret_cast<const void*>(a); };
  bool ok = cublaslt_product::alignment({at(0x1000), at(0x2000), nullptr}) == 256 &&
            cublaslt_product::alignment({at(0x1000), at(0x1004)}) == 4 &&
            cublaslt_product::alignment({at(0x1010), nullptr, at(0x1040)}) == 16 &&
            cublaslt_product::alignment({at(0x1080)}) == 128 && cublaslt_product::alignment({nullptr}) == 256;
  if (!ok) std::printf("cublaslt_product::alignment: FAILED\n");
  return ok;
}

// The host loops of a cuda-backend header (run_host) equal the interpreter too.
template <int Id>
bool check_host() {
  constexpr ein_test::hand_program<Id> object;
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, 12);
  auto ref = ein::eval::evaluate(p, env);
  std::vector<std::vector<double>> values;
  std::vector<std::vector<float>> floats;
  values.reserve(p.tensors.size() + p.outputs.size());
  floats.reserve(p.tensors.size() + p.outputs.size());
  std::vector<ein::runtime::binding> items;
  auto bind = [&](const std::string& name, bool f32, std::vector<double> v) {
    if (f32)
      items.emplace_back(name, floats.emplace_back(v.begin(), v.end()));
    else
      items.emplace_back(name, values.emplace_back(std::move(v)));
  };
  for (auto& t : p.tensors) bind(t.name, t.type == ein::ir::dtype::f32, env.at(t.name).data);
  for (auto& o : p.outputs)
    bind(o, p.find_definition(o)->type == ein::ir::dtype::f32,
         std::vector<double>(ref.at(o).data.size(), -7.0));
  ein::runtime::generated_plan<ein_test::hand_program<Id>>::run_host(ein::runtime::bindings(items));
  bool ok = true;
  for (std::size_t i = p.outputs.size(); i-- > 0;) {
    auto& r = ref.at(p.outputs[i]);
    double err = p.find_definition(p.outputs[i])->type == ein::ir::dtype::f32
                     ? ein::eval::max_rel_error(std::span<const float>(floats.back()), r)
                     : ein::eval::max_rel_error(std::span<const double>(values.back()), r);
    if (p.find_definition(p.outputs[i])->type == ein::ir::dtype::f32)
      floats.pop_back();
    else
      values.pop_back();
    const double tolerance = ein::runtime::generated_plan<ein_test::hand_program<Id>>::tolerance;
    ok = ok && err <= tolerance;
    if (!(err <= tolerance))
      std::printf("%s %s: host loops max_rel_err=%.3g FAILED\n", p.name.c_str(), p.outputs[i].c_str(), err);
  }
  return ok;
}

template <int... Id>
bool check_all_host(std::integer_sequence<int, Id...>) {
  return (check_host<Id>() & ...);
}

}  // namespace

// `--capture-first`: the captures alone, before any ordinary run in the process, so that each
// capture meets the libraries' first use (cuBLASLt's heuristic query, cuDNN's first executions),
// which the warm-up run at capture keeps out of the graph.
int main(int argc, char** argv) {
  try {
    const bool capture_first = argc > 1 && std::string_view(argv[1]) == "--capture-first";
    if (!check_alignment() || !check_all_host(std::make_integer_sequence<int, ein_test::program_count>{})) return 1;
    // the host loops pass; the CUDA plans need a device
    if (auto status = ein::runtime::exit_without_device("codegen_cuda")) return *status;
    if (capture_first) {
      const bool ok = check_all_captures(std::make_integer_sequence<int, ein_test::program_count>{});
      std::printf("ein check: capture first: every plan captured before any ordinary run %s\n",
                  ok ? "equals the interpreter when replayed" : "FAILED");
      return ok ? 0 : 1;
    }
    bool ok = check_all(std::make_integer_sequence<int, ein_test::program_count>{});
    ok = check_all_streams(std::make_integer_sequence<int, ein_test::program_count>{}) && ok;
    ok = check_all_captures(std::make_integer_sequence<int, ein_test::program_count>{}) && ok;
    if (ok)
      std::printf("every plan, run by %d threads at once on streams of their own, and captured and replayed "
                  "from two, equals the interpreter\n",
                  4);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
