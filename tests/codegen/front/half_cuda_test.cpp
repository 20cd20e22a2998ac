// Stage two of the 16-bit test on the GPU: the cuda plans of the networks in ein::half and
// ein::bfloat16 (front/half_model.hpp; their headers compiled here by the host compiler, their
// kernels by nvcc; calls::net's product and convolution are cuBLAS and cuDNN calls, and the
// epilogues' nets a cuBLASLt call and a cuDNN fused call ending in a bias and ReLU) equal the
// interpreter, which rounds what each 16-bit definition stores, on
// random inputs within the plan's tolerance (docs/decisions/0028). Without a device it says so
// and exits 77 (skipped). Each output prints an "ein check: 16-bit" line, "16-bit fused" for
// the epilogues (bench/gpu/run.sh).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "codegen/e2e/host_buffers.hpp"
#include "codegen/front/half_model.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/random.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "ein_generated/codegen_bfloat16_cuda.hpp"
#include "ein_generated/codegen_bfloat16_epilogues_cuda.hpp"
#include "ein_generated/codegen_half_calls_cuda.hpp"
#include "ein_generated/codegen_half_cuda.hpp"
#include "ein_generated/codegen_half_epilogues_cuda.hpp"

namespace {

// Device copies of host buffers, bound under the same names, and freed with it.
struct device_copies {
  std::vector<void*> memory;
  std::vector<ein::runtime::binding> items;
  explicit device_copies(const std::vector<ein::runtime::binding>& host) {
    for (auto b : host) {
      void* d = nullptr;
      const std::size_t bytes = b.count * ein::runtime::element_bytes(b.type);
      EIN_CUDA_CHECK(cudaMalloc(&d, bytes));
      memory.push_back(d);
      EIN_CUDA_CHECK(cudaMemcpy(d, b.data, bytes, cudaMemcpyHostToDevice));
      b.data = d;
      items.push_back(b);
    }
  }
  device_copies(const device_copies&) = delete;
  ~device_copies() {
    for (void* d : memory) cudaFree(d);
  }
  // Copies binding k back into the host buffer it was copied from.
  void copy_back(std::size_t k, const ein::runtime::binding& host) const {
    EIN_CUDA_CHECK(cudaMemcpy(const_cast<void*>(host.data), memory[k],
                              host.count * ein::runtime::element_bytes(host.type), cudaMemcpyDeviceToHost));
  }
};

// The plan of `object` run on the device equals the interpreter on random inputs from `seed`;
// prints each output's error as an "ein check: <check>" line and returns whether all are within
// the plan's tolerance.
template <class Object>
bool equals_interpreter(const Object& object, std::uint64_t seed, const char* check = "16-bit") {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<Object>>;
  static_assert(plan::target == ein::runtime::backend::cuda);
  auto p = ein::reify(object);
  auto env = ein::eval::random_inputs(p, seed);
  auto want = ein::eval::evaluate(p, env);
  ein_test::host_buffers host;
  for (auto& t : p.tensors) host.bind_input(t.name, t.type, env.at(t.name));
  for (auto& o : p.outputs) host.bind_output(o, p.find_definition(o)->type, want.at(o).data.size());
  device_copies device(host.items);
  ein::run(object, ein::runtime::bindings(device.items));
  EIN_CUDA_CHECK(cudaDeviceSynchronize());
  bool ok = true;
  std::map<ein::ir::dtype, std::size_t> later;  // outputs are the last buffers of their type
  for (std::size_t k = p.outputs.size(); k-- > 0;) {
    const std::size_t item = p.tensors.size() + k;
    device.copy_back(item, host.items[item]);
    const auto type = p.find_definition(p.outputs[k])->type;
    const double err = host.of_type(type, [&](auto& store) {
      return ein::eval::max_rel_error(std::span(std::as_const(store[store.size() - ++later[type]])),
                                      want.at(p.outputs[k]));
    });
    const bool within = err <= plan::tolerance;
    std::printf("ein check: %s %s %s (seed %llu): max_rel_err %.2g, tolerance %.2g%s\n", check, p.name.c_str(),
                p.outputs[k].c_str(), static_cast<unsigned long long>(seed), err, plan::tolerance,
                within ? "" : "  FAILED");
    ok = ok && within;
  }
  return ok;
}

}  // namespace

int main() {
  if (auto status = ein::runtime::exit_without_device("codegen_half_cuda")) return *status;
  bool ok = true;
  for (std::uint64_t seed : {1, 2}) {
    ok = equals_interpreter(codegen_half::f16::net, seed) && ok;
    ok = equals_interpreter(codegen_half::bf16::net, seed) && ok;
    ok = equals_interpreter(codegen_half::calls::net, seed) && ok;  // cuBLAS and cuDNN in 16 bits
    // cuBLASLt's bias, residual and ReLU, and cuDNN's fused convolution + bias + ReLU, in 16 bits
    ok = equals_interpreter(codegen_half::epilogues::f16::net, seed, "16-bit fused") && ok;
    ok = equals_interpreter(codegen_half::epilogues::bf16::net, seed, "16-bit fused") && ok;
  }
  return ok ? 0 : 1;
}
