// tiny_cnn.onnx (a small CNN: a convolution, a depthwise convolution with ReLU6, pooling, a
// classifier and softmax) imported and searched by ein_generate, its weights read from the file,
// its plan prepared once and run on ONNX Runtime's test input; its output must be within 1e-4 of
// ONNX Runtime's (bench/onnx/make_tiny_cnn.py wrote both).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ein/onnx.hpp>

#include "ein_generated/tiny_cnn.hpp"  // written by ein_generate from tiny_cnn.onnx

namespace {

// The largest difference between `got` and `want`.
double max_difference(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - double(want[i])));
  return worst;
}

}  // namespace

int main() {
  const std::string dir = EIN_EXAMPLE_DIR;
  using plan = ein::runtime::generated_plan<ein_generated::tiny_cnn::program>;
  std::printf("%s", plan::description.data());
  auto read = [&](const char* name) {
    std::string path = dir + "/test_data_set_0/" + name;
    return ein::onnx::read_values(ein::onnx::read_tensor_file(path), dir, path).f32;
  };
  const std::vector<float> x = read("input_0.pb"), want = read("output_0.pb");

  const ein::onnx::initializers weights(dir + "/tiny_cnn.onnx");
  auto net = ein::prepare(ein_generated::tiny_cnn::net, weights);
  std::vector<float> y(want.size()), again(want.size());
  net.run({{"input", x}, {"probabilities", y}});
  ein::run(ein_generated::tiny_cnn::net, weights, {{"input", x}, {"probabilities", again}});
  double error = std::max(max_difference(y, want), max_difference(again, want));
  std::printf("largest difference from ONNX Runtime: %.3g\n", error);
  return error <= 1e-4 ? 0 : 1;
}
