// The 3×3 convolution through its generated CUDA plan, checked against the interpreter (run
// directly, then prepared once for its weights with ein::prepare). This file is host C++: the
// kernels are in ein_generated/conv3x3_cuda.cu, compiled by nvcc into the conv3x3_cuda_plan
// library. Exits with 77 ("skipped") where no CUDA device exists.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.hpp"
#include "conv3x3.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein_generated/conv3x3_cuda.hpp"  // written by ein_generate (BACKEND cuda)

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
    std::printf("no CUDA device: conv3x3_cuda compiled but cannot run here\n");
    return 77;
  }
  using plan = ein::runtime::plan<std::remove_cvref_t<decltype(conv3x3::net)>>;
  std::printf("%s", plan::description.data());
  try {
    conv3x3::reference ref;
    std::vector<float> out(1 * 7 * 7 * 512);
    device_vector a(ref.a), k(ref.k), d_out(out);
    ein::run(conv3x3::net, {{"A", a.data}, {"K", k.data}, {"conv", d_out.data}});  // device pointers
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    EIN_CUDA_CHECK(cudaMemcpy(out.data(), d_out.data, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (int failed = ref.verdict(out)) return failed;
    // The weights bound once (their transforms run here, into device memory `net` owns).
    auto net = ein::prepare(conv3x3::net, {{"K", k.data}});
    device_vector prepared_out(std::vector<float>(out.size(), -7.0f));
    net.run({{"A", a.data}, {"conv", prepared_out.data}});
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    EIN_CUDA_CHECK(cudaMemcpy(out.data(), prepared_out.data, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return ref.verdict(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
