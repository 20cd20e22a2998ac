// EinNet's five cases through their generated CUDA plan (cuBLAS, cuDNN and eOperator kernels),
// checked against the interpreter, then timed (median of 50 runs after 5 warm-ups, CUDA events;
// `--check` checks only, as under compute-sanitizer). Host C++: the kernels are in
// ein_generated/paper_cases_cuda.cu. Exits with 77 ("skipped") where no CUDA device is here,
// with 1 where the CUDA setup is broken.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"
#include "device_vector.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein_generated/paper_cases_cuda.hpp"  // written by ein_generate (BACKEND cuda)
#include "paper_cases.hpp"

namespace {

// The median time of `runs` calls of `f` on the default stream, after `warm_up` untimed ones.
template <class F>
double median_ms(F&& f, int warm_up = 5, int runs = 50) {
  for (int i = 0; i < warm_up; ++i) f();
  cudaEvent_t start, stop;
  EIN_CUDA_CHECK(cudaEventCreate(&start));
  EIN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(runs);
  for (auto& t : ms) {
    EIN_CUDA_CHECK(cudaEventRecord(start));
    f();
    EIN_CUDA_CHECK(cudaEventRecord(stop));
    EIN_CUDA_CHECK(cudaEventSynchronize(stop));
    EIN_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
  return ms[runs / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const bool timed = !(argc > 1 && std::strcmp(argv[1], "--check") == 0);
  if (auto status = ein::runtime::exit_without_device("paper_cases_cuda")) return *status;
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(paper_cases::net)>>;
  std::printf("%s", plan::description.data());
  try {
    paper_cases::reference ref;
    std::map<std::string, examples::device_vector> device;
    std::vector<ein::runtime::binding> buffers;
    for (auto& [name, data] : ref.tensors)
      buffers.emplace_back(name, static_cast<const float*>(device.try_emplace(name, data).first->second.data));
    for (auto& [name, data] : ref.outputs) buffers.emplace_back(name, device.try_emplace(name, data).first->second.data);
    ein::runtime::bindings bound(std::move(buffers));
    ein::run(paper_cases::net, bound);  // device pointers
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    auto outputs = ref.outputs;
    for (auto& [name, data] : outputs) device.at(name).copy_to(data);
    if (int failed = ref.verdict(outputs, plan::tolerance)) return failed;
    if (!timed) return 0;
    // Temporaries are stream-ordered: the pool keeps their memory between the timed runs.
    ein::runtime::keep_pool_memory(0);
    std::printf("generated cuda plan: %.4f ms per run of the whole program (median of 50)\n",
                median_ms([&] { ein::run(paper_cases::net, bound); }));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
