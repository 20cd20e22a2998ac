// The 3×3 convolution through its generated CUDA plan, checked against the interpreter (run
// directly, then prepared once for its weights with ein::prepare). This file is host C++: the
// kernels are in ein_generated/conv3x3_cuda.cu, compiled by nvcc into the conv3x3_cuda_plan
// library. Exits with 77 ("skipped") where no CUDA device is here, with 1 where the CUDA setup
// is broken.
#include <cstdio>
#include <vector>

#include "check.hpp"
#include "conv3x3.hpp"
#include "device_vector.hpp"
#include "ein_generated/conv3x3_cuda.hpp"  // written by ein_generate (BACKEND cuda)

int main() {
  if (auto status = ein::runtime::exit_without_device("conv3x3_cuda")) return *status;
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(conv3x3::net)>>;
  std::printf("%s", plan::description.data());
  try {
    conv3x3::reference ref;
    std::vector<float> out(1 * 7 * 7 * 512);
    examples::device_vector a(ref.a), k(ref.k), d_out(out);
    ein::run(conv3x3::net, {{"A", a.data}, {"K", k.data}, {"conv", d_out.data}});  // device pointers
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    d_out.copy_to(out);
    if (int failed = ref.verdict(out, plan::tolerance)) return failed;
    // The weights bound once (their transforms run here, into device memory `net` owns).
    auto net = ein::prepare(conv3x3::net, {{"K", k.data}});
    examples::device_vector prepared_out(std::vector<float>(out.size(), -7.0f));
    net.run({{"A", a.data}, {"conv", prepared_out.data}});
    EIN_CUDA_CHECK(cudaDeviceSynchronize());
    prepared_out.copy_to(out);
    return ref.verdict(out, plan::tolerance);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
