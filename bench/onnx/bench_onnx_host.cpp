// torchvision's ResNet-18, MobileNet-V2 and SqueezeNet 1.1 as ONNX files (exported with random
// weights by torchvision_reference.py, which also ran ONNX Runtime and PyTorch eager on the same
// input): each imported, searched and generated for the host by ein_generate, prepared with the
// file's initializers, checked against ONNX Runtime's output (onnx/reference_data.hpp) and
// timed; prints a table and writes JSON beside ONNX Runtime's and PyTorch's medians.
//
//   bench_onnx_host <folder of torchvision_reference.py> <out.json> [--runs N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <ein/onnx.hpp>

#include "common/machine.hpp"
#include "common/statistics.hpp"
#include "onnx/reference_data.hpp"
#include "ein_generated/mobilenet_v2.hpp"
#include "ein_generated/resnet18.hpp"
#include "ein_generated/squeezenet1_1.hpp"

namespace {

using ein::bench::onnx_reference::result;

template <class Program>
result measure(const Program& program, const std::string& folder, const std::string& name, int runs) {
  const auto data = ein::bench::onnx_reference::read(folder, name);
  std::vector<float> y(data.output.size());
  auto net = ein::prepare(program, ein::onnx::initializers(folder + "/" + name + "/" + name + ".onnx"));
  auto run = [&] { net.run({{"input", data.input}, {"output", y}}); };
  run();
  result r = ein::bench::onnx_reference::compare(y, data.output);
  for (int k = 0; k < 2; ++k) run();
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k) {
    auto start = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  r.ms = ein::bench::median(ms);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = ein::bench::onnx_reference::parse(argc, argv);
  if (!args) return 2;
  const std::string& folder = args->folder;
  const int runs = args->runs;
  std::ifstream in(folder + "/reference.json");
  const nlohmann::json reference = nlohmann::json::parse(in);
  nlohmann::ordered_json out;
  out["command"] = "bench/onnx/run.sh";
  out["machine"] = {{"nproc", ein::bench::processors()}, {"cpu", ein::bench::cpu_model()},
                    {"load_average_1min", ein::bench::load_average()}, {"utc", ein::bench::utc_now()}};
  out["runs"] = runs;
  out["statistic"] = "median";
  out["onnxruntime"] = reference.at("onnxruntime");
  out["torch"] = reference.at("torch");
  bool close = true;
  std::printf("| network | ein (ms) | ONNX Runtime (ms) | PyTorch eager (ms) | max abs. difference | relative to max abs. output |\n"
              "|---|---|---|---|---|---|\n");
  auto row = [&](const char* name, result r) {
    auto& ref = reference.at("networks").at(name);
    double ort = ref.at("onnxruntime_ms"), eager = ref.at("pytorch_eager_ms");
    std::printf("| %s | %.2f | %.2f | %.2f | %.2g | %.2g |\n", name, r.ms, ort, eager, r.max_abs, r.relative());
    out["networks"][name] = {{"ein_ms", r.ms}, {"onnxruntime_ms", ort}, {"pytorch_eager_ms", eager},
                             {"max_abs_difference_from_onnxruntime", r.max_abs}, {"max_abs_output", r.scale},
                             {"difference_relative_to_max_abs_output", r.relative()}};
    close = close && r.close();
  };
  row("resnet18", measure(ein_generated::resnet18::net, folder, "resnet18", runs));
  row("mobilenet_v2", measure(ein_generated::mobilenet_v2::net, folder, "mobilenet_v2", runs));
  row("squeezenet1_1", measure(ein_generated::squeezenet1_1::net, folder, "squeezenet1_1", runs));
  std::ofstream(args->out) << out.dump(2) << "\n";
  if (!close) std::fprintf(stderr, "bench_onnx_host: an output differs from ONNX Runtime's by more than 1e-4\n");
  return close ? 0 : 1;
}
