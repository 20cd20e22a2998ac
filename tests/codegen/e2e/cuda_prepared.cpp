// Prepared cuda plans (ein::prepare with device pointers; headers compiled here by the host
// compiler, kernels by nvcc): where a device exists, each prepared plan must equal the
// interpreter over several runs, after the device weights it was prepared from are overwritten;
// and a run captured into a CUDA graph (ein::prepared::capture) must write none of its outputs
// until replayed (its warm-up run writes scratch memory), then equal the interpreter and an
// ordinary run, on two streams, alongside an ordinary run on other buffers, and after its bound
// inputs change in place; ein::profile times its steps with CUDA events on a stream of its own,
// one per line of the plan's description that a run runs, and its runs equal the interpreter.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "codegen/e2e/prepared_programs.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "ein/dispatch/prepare.hpp"
#include "ein/profile_cuda.hpp"
#include "ein_generated/hand_prepared_chain_cuda.hpp"
#include "ein_generated/hand_prepared_relayout_cuda.hpp"
#include "ein_generated/hand_prepared_searched_cuda.hpp"

namespace {

// A device tensor holding values in its element type (float or double).
struct device_tensor {
  bool f32;
  std::size_t count;
  void* data = nullptr;
  device_tensor(bool is_f32, const std::vector<double>& v) : f32(is_f32), count(v.size()) {
    EIN_CUDA_CHECK(cudaMalloc(&data, count * (f32 ? sizeof(float) : sizeof(double))));
    assign(v);
  }
  device_tensor(const device_tensor&) = delete;
  ~device_tensor() { cudaFree(data); }
  void assign(const std::vector<double>& v) {
    if (f32) {
      std::vector<float> h(v.begin(), v.end());
      EIN_CUDA_CHECK(cudaMemcpy(data, h.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    } else {
      EIN_CUDA_CHECK(cudaMemcpy(data, v.data(), count * sizeof(double), cudaMemcpyHostToDevice));
    }
  }
  ein::runtime::binding bind(const std::string& name) const {
    return f32 ? ein::runtime::binding(name, static_cast<float*>(data))
               : ein::runtime::binding(name, static_cast<double*>(data));
  }
  std::vector<double> values() const {
    if (f32) {
      std::vector<float> h(count);
      EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
      return {h.begin(), h.end()};
    }
    std::vector<double> h(count);
    EIN_CUDA_CHECK(cudaMemcpy(h.data(), data, count * sizeof(double), cudaMemcpyDeviceToHost));
    return h;
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

bool is_f32(ein::ir::dtype t) { return t == ein::ir::dtype::f32; }

// The weights of a program on the device, random values from `seed` (kept in `env`, by name),
// with their bindings.
struct device_weights {
  ein::eval::bindings env;
  std::vector<std::unique_ptr<device_tensor>> tensors;
  std::vector<ein::runtime::binding> items;

  device_weights(const ein::ir::program& p, std::uint64_t seed) : env(ein::eval::random_inputs(p, seed)) {
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) {
        tensors.push_back(std::make_unique<device_tensor>(is_f32(t.type), env.at(t.name).data));
        items.push_back(tensors.back()->bind(t.name));
      }
  }
};

// Within the plan's own tolerance (full float for cuDNN unless the plan allows TF32).
template <int K>
bool check() {
  constexpr int id = ein_test::prepared_base + K;
  const double tolerance = ein::runtime::generated_plan<ein_test::hand_program<id>>::tolerance;
  static_assert(ein::runtime::generated_plan<ein_test::hand_program<id>>::target == ein::runtime::backend::cuda);
  constexpr ein_test::hand_program<id> object;
  auto p = ein::reify(object);
  device_weights weights(p, 21);
  const auto& weights_env = weights.env;
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  for (auto& w : weights.tensors) w->assign(std::vector<double>(w->count, 0.75));  // not read again
  bool ok = true;
  for (std::uint64_t run = 1; run <= 3; ++run) {
    auto env = ein::eval::random_inputs(p, 21 + run);
    for (auto& t : p.tensors)
      if (t.role == ein::ir::tensor_role::weight) env[t.name] = weights_env.at(t.name);
    auto ref = ein::eval::evaluate(p, env);
    std::vector<std::unique_ptr<device_tensor>> keep;
    std::vector<ein::runtime::binding> items;
    for (auto& t : p.tensors)
      if (t.role != ein::ir::tensor_role::weight) {
        keep.push_back(std::make_unique<device_tensor>(is_f32(t.type), env.at(t.name).data));
        items.push_back(keep.back()->bind(t.name));
      }
    std::size_t first_output = keep.size();
    for (auto& o : p.outputs) {
      keep.push_back(std::make_unique<device_tensor>(is_f32(p.find_definition(o)->type),
                                                     std::vector<double>(ref.at(o).data.size(), -7.0)));
      items.push_back(keep.back()->bind(o));
    }
    prepared.run(ein::runtime::bindings(items));
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < p.outputs.size(); ++i) {
      double err = keep[first_output + i]->error_against(ref.at(p.outputs[i]));
      bool pass = err <= tolerance;
      std::printf("%-18s run %d %-5s max_rel_err=%.3g %s\n", p.name.c_str(), static_cast<int>(run),
                  p.outputs[i].c_str(), err, pass ? "ok" : "FAILED");
      ok = ok && pass;
    }
  }
  return ok;
}

// The largest difference of `a` and `b`, relative to b's largest magnitude.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double most = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    most = std::max(most, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? most / scale : most;
}

// Device buffers for every input (values of `env`) and output (-7) of `p`, and their bindings.
struct run_buffers {
  std::vector<std::unique_ptr<device_tensor>> inputs, outputs;
  std::vector<ein::runtime::binding> items;
  run_buffers(const ein::ir::program& p, const ein::eval::bindings& env, const ein::eval::bindings& ref) {
    for (auto& t : p.tensors)
      if (t.role != ein::ir::tensor_role::weight) {
        inputs.push_back(std::make_unique<device_tensor>(is_f32(t.type), env.at(t.name).data));
        items.push_back(inputs.back()->bind(t.name));
      }
    for (auto& o : p.outputs) {
      outputs.push_back(std::make_unique<device_tensor>(is_f32(p.find_definition(o)->type),
                                                        std::vector<double>(ref.at(o).data.size(), -7.0)));
      items.push_back(outputs.back()->bind(o));
    }
  }
  void assign_inputs(const ein::ir::program& p, const ein::eval::bindings& env) {
    std::size_t i = 0;
    for (auto& t : p.tensors)
      if (t.role != ein::ir::tensor_role::weight) inputs[i++]->assign(env.at(t.name).data);
  }
  void clear_outputs() {
    for (auto& o : outputs) o->assign(std::vector<double>(o->count, -7.0));
  }
};

// Whether every output of `b` is within `tolerance` of the interpreter's `ref`, printing each.
bool outputs_match(const ein::ir::program& p, const run_buffers& b, const ein::eval::bindings& ref,
                   double tolerance, const char* what) {
  bool ok = true;
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    double err = b.outputs[i]->error_against(ref.at(p.outputs[i]));
    bool pass = err <= tolerance;
    std::printf("%-18s %-26s %-5s max_rel_err=%.3g %s\n", p.name.c_str(), what, p.outputs[i].c_str(), err,
                pass ? "ok" : "FAILED");
    ok = ok && pass;
  }
  return ok;
}

// The interpreter's outputs for inputs of `seed` and the weights of `weights_env`.
ein::eval::bindings inputs_for(const ein::ir::program& p, std::uint64_t seed,
                                  const ein::eval::bindings& weights_env) {
  auto env = ein::eval::random_inputs(p, seed);
  for (auto& t : p.tensors)
    if (t.role == ein::ir::tensor_role::weight) env[t.name] = weights_env.at(t.name);
  return env;
}

struct stream_pair {
  cudaStream_t s[2] = {nullptr, nullptr};
  stream_pair() {
    for (auto& x : s) EIN_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  }
  ~stream_pair() {
    for (auto& x : s) cudaStreamDestroy(x);
  }
};

template <int K>
bool check_capture() {
  constexpr int id = ein_test::prepared_base + K;
  const double tolerance = ein::runtime::generated_plan<ein_test::hand_program<id>>::tolerance;
  constexpr ein_test::hand_program<id> object;
  auto p = ein::reify(object);
  device_weights weights(p, 41);
  const auto& weights_env = weights.env;
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  stream_pair streams;
  auto env = inputs_for(p, 42, weights_env);
  auto ref = ein::eval::evaluate(p, env);
  run_buffers graph_buffers(p, env, ref), beside(p, env, ref);
  auto graph = prepared.capture(ein::runtime::bindings(graph_buffers.items));
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  bool ok = true;
  for (auto& o : graph_buffers.outputs) {  // a capture writes none of the bound outputs
    bool untouched = o->values() == std::vector<double>(o->count, -7.0);
    if (!untouched) std::printf("%-18s capture wrote an output: FAILED\n", p.name.c_str());
    ok = ok && untouched;
  }
  graph.replay(streams.s[0]);
  prepared.run(ein::runtime::bindings(beside.items), streams.s[1]);  // at once, its own buffers
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  ok = outputs_match(p, graph_buffers, ref, tolerance, "replay") && ok;
  ok = outputs_match(p, beside, ref, tolerance, "run beside the replay") && ok;
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    double d = relative_difference(graph_buffers.outputs[i]->values(), beside.outputs[i]->values());
    bool same = d <= 1e-6;
    std::printf("%-18s replay against run %-5s difference=%.3g %s\n", p.name.c_str(), p.outputs[i].c_str(), d,
                same ? "ok" : "FAILED");
    ok = ok && same;
  }
  // new inputs written in place: the next replays read them, on either stream
  auto next = inputs_for(p, 43, weights_env);
  auto next_ref = ein::eval::evaluate(p, next);
  graph_buffers.assign_inputs(p, next);
  for (int stream = 0; stream < 2; ++stream) {
    graph_buffers.clear_outputs();
    graph.replay(streams.s[stream]);
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    const char* what = stream ? "replay, new inputs, s1" : "replay, new inputs, s0";
    ok = outputs_match(p, graph_buffers, next_ref, tolerance, what) && ok;
  }
  // replays on two streams at once are ordered by CUDA
  graph_buffers.clear_outputs();
  graph.replay(streams.s[0]);
  graph.replay(streams.s[1]);
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  ok = outputs_match(p, graph_buffers, next_ref, tolerance, "two replays, two streams") && ok;
  return ok;
}

// ein::profile of a prepared cuda plan on a non-blocking stream (ein/profile_cuda.hpp).
template <int K>
bool check_profile() {
  constexpr int id = ein_test::prepared_base + K;
  using plan = ein::runtime::generated_plan<ein_test::hand_program<id>>;
  constexpr ein_test::hand_program<id> object;
  auto p = ein::reify(object);
  device_weights weights(p, 51);
  auto prepared = ein::prepare(object, ein::runtime::bindings(weights.items));
  stream_pair streams;
  auto env = inputs_for(p, 52, weights.env);
  auto ref = ein::eval::evaluate(p, env);
  run_buffers buffers(p, env, ref);
  auto report = ein::profile(prepared, ein::runtime::bindings(buffers.items),
                             {.warmup = 1, .min_runs = 3, .max_runs = 3, .stream = streams.s[0]});
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  bool ok = outputs_match(p, buffers, ref, plan::tolerance, "profiled runs");
  bool shape = report.runs == 3 && !report.steps.empty() && report.run_median_ms > 0;
  for (std::size_t k = 0; k < report.steps.size(); ++k) {
    const auto& step = report.steps[k];
    // the description's line of the step, as it runs: each once, in the plan's order
    std::string line = ein::detail::line_of(plan::description, step.index + 1);
    line.erase(0, line.find_first_not_of(' '));
    shape = shape && step.description == line && (k == 0 || step.index > report.steps[k - 1].index) &&
            step.median_ms > 0 && step.fastest_ms > 0 && step.fastest_ms <= step.median_ms;
  }
  std::printf("%-18s profile: %zu steps, their medians %.4f ms, a run %.4f ms (%d runs) %s\n", p.name.c_str(),
              report.steps.size(), report.steps_ms(), report.run_median_ms, report.runs, shape ? "ok" : "FAILED");
  if (!shape) std::printf("%s", report.table().c_str());
  return ok && shape;
}

}  // namespace

int main() {
  try {
    if (auto status = ein::runtime::exit_without_device("codegen_cuda_prepared")) return *status;
    bool ok = check<0>();
    ok = check<1>() && ok;
    ok = check<2>() && ok;
    ok = check_capture<0>() && ok;
    ok = check_capture<1>() && ok;
    ok = check_capture<2>() && ok;
    ok = check_profile<0>() && ok;
    ok = check_profile<1>() && ok;
    ok = check_profile<2>() && ok;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
