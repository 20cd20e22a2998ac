// ein.hpp in CUDA code: nvcc compiles the user umbrella and the generic path of ein::run and
// ein::prepare (the interpreter on host memory) beside a kernel of the file. It only compiles (no
// device is needed), in the ctest dispatch_ein_hpp_nvcc:
//   nvcc -std=c++20 -x cu -c tests/dispatch/nvcc_ein.cu -I include -I tests -o nvcc_ein.o
#include <cuda_runtime.h>

#include <vector>

#include "ein/ein.hpp"
#include "front/models.hpp"

static_assert(!ein::runtime::has_plan_v<decltype(conv3x3::net)>, "no generated header is included here");

namespace {

__global__ void scale(float* x, int n, float factor) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) x[i] *= factor;
}

}  // namespace

/// conv3x3 on host vectors through the interpreter, directly and prepared, then a kernel of this
/// file on a device copy of its output.
void conv3x3_then_scale(const std::vector<float>& a, const std::vector<float>& k, std::vector<float>& out,
                        float* device_out, cudaStream_t s) {
  ein::run(conv3x3::net, {{"A", a}, {"K", k}, {"out", out}});
  auto prepared = ein::prepare(conv3x3::net, {{"K", k}});
  prepared.run({{"A", a}, {"out", out}});
  auto n = static_cast<int>(out.size());
  cudaMemcpyAsync(device_out, out.data(), out.size() * sizeof(float), cudaMemcpyHostToDevice, s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(device_out, n, 0.5f);
}
