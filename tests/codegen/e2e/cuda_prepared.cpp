// Prepared cuda plans (ein::prepare with device pointers; headers compiled here by the host
// compiler, kernels by nvcc): where a device exists, each prepared plan must equal the
// interpreter over several runs, after the device weights it was prepared from are overwritten.
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "codegen/e2e/prepared_programs.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/dispatch/prepare.hpp"
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

template <int K>
bool check(double tolerance) {
  constexpr int id = ein_test::prepared_base + K;
  static_assert(ein::runtime::plan<ein_test::hand_program<id>>::target == ein::runtime::backend::cuda);
  constexpr ein_test::hand_program<id> object;
  auto p = ein::reify(object);
  auto weights_env = ein::eval::random_inputs(p, 21);
  std::vector<std::unique_ptr<device_tensor>> weights;
  std::vector<ein::runtime::binding> weight_items;
  for (auto& t : p.tensors)
    if (t.role == ein::ir::tensor_role::weight) {
      weights.push_back(std::make_unique<device_tensor>(is_f32(t.type), weights_env.at(t.name).data));
      weight_items.push_back(weights.back()->bind(t.name));
    }
  auto prepared = ein::prepare(object, ein::runtime::bindings(weight_items));
  for (auto& w : weights) w->assign(std::vector<double>(w->count, 0.75));  // not read again
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
      bool pass = err < tolerance;
      std::printf("%-18s run %d %-5s max_rel_err=%.3g %s\n", p.name.c_str(), static_cast<int>(run),
                  p.outputs[i].c_str(), err, pass ? "ok" : "FAILED");
      ok = ok && pass;
    }
  }
  return ok;
}

}  // namespace

int main() {
  try {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("no CUDA device: the prepared CUDA plans compiled and linked but cannot run here\n");
      return 77;
    }
    // cuDNN's default math may use TF32 for the f32 convolution of prepared_relayout.
    bool ok = check<0>(1e-2);
    ok = check<1>(1e-12) && ok;
    ok = check<2>(1e-5) && ok;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
