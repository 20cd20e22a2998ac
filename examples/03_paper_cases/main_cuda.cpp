// EinNet's five cases through their generated CUDA plan (cuBLAS, cuDNN and eOperator kernels),
// checked against the interpreter. Host C++: the kernels are in ein_generated/paper_cases_cuda.cu.
// Exits with 77 ("skipped") where no CUDA device exists.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"
#include "device_vector.hpp"
#include "ein_generated/paper_cases_cuda.hpp"  // written by ein_generate (BACKEND cuda)
#include "paper_cases.hpp"

int main() {
  if (!examples::cuda_device_present("paper_cases_cuda")) return 77;
  using plan = ein::runtime::plan<std::remove_cvref_t<decltype(paper_cases::net)>>;
  std::printf("%s", plan::description.data());
  try {
    paper_cases::reference ref;
    std::map<std::string, examples::device_vector> device;
    std::vector<ein::runtime::binding> buffers;
    for (auto& [name, data] : ref.tensors)
      buffers.emplace_back(name, static_cast<const float*>(device.try_emplace(name, data).first->second.data));
    for (auto& [name, data] : ref.outputs) buffers.emplace_back(name, device.try_emplace(name, data).first->second.data);
    ein::run(paper_cases::net, ein::runtime::bindings(std::move(buffers)));  // device pointers
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    auto outputs = ref.outputs;
    for (auto& [name, data] : outputs) device.at(name).copy_to(data);
    return ref.verdict(outputs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
