// Runs the plan of examples/04_onnx's tiny_cnn.onnx, its weights read from the file, on the
// file's test input and compares with ONNX Runtime's output.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ein/onnx.hpp>

#include "ein_generated/tiny_cnn.hpp"

int main() {
  const std::string dir = EIN_ONNX_DIR;
  auto read = [&](const char* name) {
    std::string path = dir + "/test_data_set_0/" + name;
    return ein::onnx::read_values(ein::onnx::read_tensor_file(path), dir, path).f32;
  };
  const std::vector<float> x = read("input_0.pb"), want = read("output_0.pb");
  std::vector<float> y(want.size());
  auto net = ein::prepare(ein_generated::tiny_cnn::net, ein::onnx::initializers(dir + "/tiny_cnn.onnx"));
  net.run({{"input", x}, {"probabilities", y}});
  double worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(double(y[i]) - double(want[i])));
  std::printf("tiny_cnn: largest difference from ONNX Runtime %g\n", worst);
  return worst <= 1e-4 ? 0 : 1;
}
