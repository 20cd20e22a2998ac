// torchvision's ResNet-18, MobileNet-V2 and SqueezeNet 1.1 as ONNX files (bench/onnx/run.sh) on a
// CUDA device: each network's cuda plan (cuDNN for its convolutions, the grouped and depthwise ones
// with cuDNN's group count, cuBLAS for its products, generated kernels for the rest), prepared on
// the device with the file's initializers, run on ONNX Runtime's input, checked against ONNX
// Runtime's output (every element within 1e-4, and within 1e-4 of the output's largest magnitude,
// as bench_onnx_host checks) and timed (CUDA events around each prepared run, medians); prints a
// table and writes JSON. Without a CUDA device it says so and exits 77 (skipped), and fails where
// the CUDA setup is broken (runtime::exit_without_device): where there is none, building it is
// the check that the three cuda plans compile and link.
//
//   bench_onnx_cuda <folder of torchvision_reference.py> <out.json> [--runs N]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
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
#include "common/statistics.hpp"
#include "ein_generated/mobilenet_v2_cuda.hpp"
#include "ein_generated/resnet18_cuda.hpp"
#include "ein_generated/squeezenet1_1_cuda.hpp"

namespace {

// A device copy of host floats, freed with it.
class device_floats {
 public:
  explicit device_floats(const std::vector<float>& host) : count_(host.size()) {
    EIN_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(1, count_) * sizeof(float)));
    EIN_CUDA_CHECK(cudaMemcpy(data_, host.data(), count_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  explicit device_floats(std::size_t count) : count_(count) {
    EIN_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(1, count_) * sizeof(float)));
  }
  device_floats(const device_floats&) = delete;
  device_floats& operator=(const device_floats&) = delete;
  ~device_floats() { cudaFree(data_); }
  float* data() const { return data_; }
  std::vector<float> to_host() const {
    std::vector<float> host(count_);
    EIN_CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  float* data_ = nullptr;
  std::size_t count_;
};

struct result {
  double ms = 0, max_abs = 0, scale = 0;  // scale: the largest |ONNX Runtime's output|
};

template <class Program>
result measure(const Program& program, const std::string& folder, const std::string& name, int runs) {
  const std::string dir = folder + "/" + name;
  auto read = [&](const char* file) {
    std::string path = dir + "/test_data_set_0/" + file;
    return ein::onnx::read_values(ein::onnx::read_tensor_file(path), dir, path).f32;
  };
  const std::vector<float> want = read("output_0.pb");
  const device_floats x(read("input_0.pb")), y(want.size());
  // the weights the plan lists, copied to the device with their shapes
  const ein::onnx::initializers file(dir + "/" + name + ".onnx");
  std::vector<std::unique_ptr<device_floats>> copies;
  std::vector<ein::runtime::binding> weights;
  for (std::string_view w : Program::weights) {
    const ein::onnx::tensor_data* t = file.find(w);
    if (!t || t->type != ::onnx::TensorProto_DataType_FLOAT) throw ein::user_error("bench_onnx_cuda: " + name + " has no float weight `" + std::string(w) + "`");
    copies.push_back(std::make_unique<device_floats>(t->f32));
    ein::runtime::binding b(w, static_cast<const float*>(copies.back()->data()));
    b.rank = t->dims.size();
    for (std::size_t d = 0; d < t->dims.size(); ++d) b.shape[d] = t->dims[d];
    weights.push_back(b);
  }
  cudaStream_t stream = nullptr;
  EIN_CUDA_CHECK(cudaStreamCreate(&stream));
  auto net = ein::prepare(program, ein::runtime::bindings(std::move(weights), "ein::prepare"), stream);
  auto run = [&] { net.run({{"input", static_cast<const float*>(x.data())}, {"output", y.data()}}, stream); };
  result r;
  run();
  EIN_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> got = y.to_host();
  for (std::size_t i = 0; i < got.size(); ++i) {
    r.max_abs = std::max(r.max_abs, std::abs(double(got[i]) - double(want[i])));
    r.scale = std::max(r.scale, std::abs(double(want[i])));
  }
  for (int k = 0; k < 3; ++k) run();
  cudaEvent_t start, stop;
  EIN_CUDA_CHECK(cudaEventCreate(&start));
  EIN_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k) {
    EIN_CUDA_CHECK(cudaEventRecord(start, stream));
    run();
    EIN_CUDA_CHECK(cudaEventRecord(stop, stream));
    EIN_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    EIN_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  r.ms = ein::bench::median(ms);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--runs")) {
    std::fprintf(stderr, "usage: %s <folder of torchvision_reference.py> <out.json> [--runs N]\n", argv[0]);
    return 2;
  }
  // where none is here, building this program was the check: the three cuda plans compile and link
  if (auto status = ein::runtime::exit_without_device("bench_onnx_cuda")) return *status;
  const std::string folder = argv[1];
  const int runs = argc == 5 ? std::max(1, std::atoi(argv[4])) : 30;
  cudaDeviceProp device{};
  EIN_CUDA_CHECK(cudaGetDeviceProperties(&device, 0));
  nlohmann::ordered_json out;
  out["command"] = "bench_onnx_cuda";
  out["machine"] = {{"gpu", device.name}, {"cpu", ein::bench::cpu_model()}, {"utc", ein::bench::utc_now()}};
  out["runs"] = runs;
  out["statistic"] = "median";
  bool close = true;
  std::printf("| network | ein cuda (ms) | max abs. difference | relative to max abs. output |\n|---|---|---|---|\n");
  auto row = [&](const char* name, result r) {
    double relative = r.scale > 0 ? r.max_abs / r.scale : r.max_abs;
    std::printf("| %s | %.3f | %.2g | %.2g |\n", name, r.ms, r.max_abs, relative);
    out["networks"][name] = {{"ein_cuda_ms", r.ms},
                             {"max_abs_difference_from_onnxruntime", r.max_abs},
                             {"max_abs_output", r.scale},
                             {"difference_relative_to_max_abs_output", relative}};
    close = close && r.max_abs <= 1e-4 && relative <= 1e-4;
  };
  row("resnet18", measure(ein_generated::resnet18_cuda::net, folder, "resnet18", runs));
  row("mobilenet_v2", measure(ein_generated::mobilenet_v2_cuda::net, folder, "mobilenet_v2", runs));
  row("squeezenet1_1", measure(ein_generated::squeezenet1_1_cuda::net, folder, "squeezenet1_1", runs));
  std::ofstream(argv[2]) << out.dump(2) << "\n";
  if (!close) std::fprintf(stderr, "bench_onnx_cuda: an output differs from ONNX Runtime's by more than 1e-4\n");
  return close ? 0 : 1;
}
