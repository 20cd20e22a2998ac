// EinNet's five cases through their generated CUDA plan (cuBLAS, cuDNN and eOperator kernels),
// checked against the interpreter. Host C++: the kernels are in ein_generated/paper_cases_cuda.cu.
// Exits with 77 ("skipped") where no CUDA device exists.
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <vector>

#include "check.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein_generated/paper_cases_cuda.hpp"  // written by ein_generate (BACKEND cuda)
#include "paper_cases.hpp"

namespace {

// A device copy of a host vector.
struct device_vector {
  float* data = nullptr;
  std::size_t count;
  explicit device_vector(const std::vector<float>& v) : count(v.size()) {
    EIN_CUDA_CHECK(cudaMalloc(&data, count * sizeof(float)));
    EIN_CUDA_CHECK(cudaMemcpy(data, v.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }
  device_vector(const device_vector&) = delete;
  ~device_vector() { cudaFree(data); }
};

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: paper_cases_cuda compiled but cannot run here\n");
    return 77;
  }
  using plan = ein::runtime::plan<std::remove_cvref_t<decltype(paper_cases::net)>>;
  std::printf("%s", plan::description.data());
  try {
    paper_cases::reference ref;
    std::map<std::string, device_vector> device;
    std::vector<ein::runtime::binding> buffers;
    for (auto& [name, data] : ref.tensors)
      buffers.emplace_back(name, static_cast<const float*>(device.try_emplace(name, data).first->second.data));
    for (auto& [name, data] : ref.outputs) buffers.emplace_back(name, device.try_emplace(name, data).first->second.data);
    ein::run(paper_cases::net, ein::runtime::bindings(std::move(buffers)));  // device pointers
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    auto outputs = ref.outputs;
    for (auto& [name, data] : outputs)
      EIN_CUDA_CHECK(cudaMemcpy(data.data(), device.at(name).data, data.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return ref.verdict(outputs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
