// torchvision's ResNet-18, MobileNet-V2 and SqueezeNet 1.1 as ONNX files (bench/onnx/run.sh) on a
// CUDA device: each network's cuda plan (cuDNN for its convolutions, the grouped and depthwise ones
// with cuDNN's group count, cuBLAS for its products, generated kernels for the rest), prepared on
// the device with the file's initializers, run on ONNX Runtime's input, checked against ONNX
// Runtime's output as bench_onnx_host checks it (onnx/reference_data.hpp) and timed (CUDA events
// around each prepared run, medians); prints a table and writes JSON. Without a CUDA device it says so and exits 77 (skipped), and fails where
// the CUDA setup is broken (runtime::exit_without_device): where there is none, building it is
// the check that the three cuda plans compile and link.
//
//   bench_onnx_cuda <folder of torchvision_reference.py> <out.json> [--runs N]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ein/onnx.hpp>
#include <ein/runtime/cuda_check.hpp>
#include <ein/runtime/cuda_device.hpp>

#include "common/machine.hpp"
#include "gpu/gpu_timing.hpp"
#include "onnx/reference_data.hpp"
#include "ein_generated/mobilenet_v2_cuda.hpp"
#include "ein_generated/resnet18_cuda.hpp"
#include "ein_generated/squeezenet1_1_cuda.hpp"

namespace {

using ein::bench::gpu::device_array;
using ein::bench::onnx_reference::result;

template <class Program>
result measure(const Program& program, const std::string& folder, const std::string& name, int runs) {
  const auto data = ein::bench::onnx_reference::read(folder, name);
  device_array x(data.input.size()), y(data.output.size());
  x.upload(data.input);
  // the weights the plan lists, copied to the device with their shapes
  const ein::onnx::initializers file(folder + "/" + name + "/" + name + ".onnx");
  std::vector<std::unique_ptr<device_array>> copies;
  std::vector<ein::runtime::binding> weights;
  for (std::string_view w : Program::weights) {
    const ein::onnx::tensor_data* t = file.find(w);
    if (!t || t->type != ::onnx::TensorProto_DataType_FLOAT)
      throw ein::user_error("bench_onnx_cuda: " + name + " has no float weight `" + std::string(w) + "`");
    copies.push_back(std::make_unique<device_array>(t->f32.size()));
    copies.back()->upload(t->f32);
    ein::runtime::binding b(w, static_cast<const float*>(copies.back()->data()));
    b.rank = t->dims.size();
    for (std::size_t d = 0; d < t->dims.size(); ++d) b.shape[d] = t->dims[d];
    weights.push_back(b);
  }
  cudaStream_t stream = nullptr;
  EIN_CUDA_CHECK(cudaStreamCreate(&stream));
  auto net = ein::prepare(program, ein::runtime::bindings(std::move(weights), "ein::prepare"), stream);
  auto run = [&] { net.run({{"input", static_cast<const float*>(x.data())}, {"output", y.data()}}, stream); };
  run();
  EIN_CUDA_CHECK(cudaStreamSynchronize(stream));
  result r = ein::bench::onnx_reference::compare(y.download(), data.output);
  r.ms = ein::bench::gpu::median_ms(run, stream, 3, runs);
  cudaStreamDestroy(stream);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = ein::bench::onnx_reference::parse(argc, argv);
  if (!args) return 2;
  // where none is here, building this program was the check: the three cuda plans compile and link
  if (auto status = ein::runtime::exit_without_device("bench_onnx_cuda")) return *status;
  const std::string& folder = args->folder;
  const int runs = args->runs;
  const auto device = ein::bench::gpu::describe_device();
  nlohmann::ordered_json out;
  out["command"] = "bench_onnx_cuda";
  out["machine"] = {{"gpu", device.name}, {"cuda", device.runtime}, {"cpu", ein::bench::cpu_model()}, {"utc", ein::bench::utc_now()}};
  out["runs"] = runs;
  out["statistic"] = "median";
  bool close = true;
  std::printf("| network | ein cuda (ms) | max abs. difference | relative to max abs. output |\n|---|---|---|---|\n");
  auto row = [&](const char* name, result r) {
    std::printf("| %s | %.3f | %.2g | %.2g |\n", name, r.ms, r.max_abs, r.relative());
    out["networks"][name] = {{"ein_cuda_ms", r.ms},
                             {"max_abs_difference_from_onnxruntime", r.max_abs},
                             {"max_abs_output", r.scale},
                             {"difference_relative_to_max_abs_output", r.relative()}};
    close = close && r.close();
  };
  row("resnet18", measure(ein_generated::resnet18_cuda::net, folder, "resnet18", runs));
  row("mobilenet_v2", measure(ein_generated::mobilenet_v2_cuda::net, folder, "mobilenet_v2", runs));
  row("squeezenet1_1", measure(ein_generated::squeezenet1_1_cuda::net, folder, "squeezenet1_1", runs));
  std::ofstream(args->out) << out.dump(2) << "\n";
  if (!close) std::fprintf(stderr, "bench_onnx_cuda: an output differs from ONNX Runtime's by more than 1e-4\n");
  return close ? 0 : 1;
}
