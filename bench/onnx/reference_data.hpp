// What bench_onnx_host and bench_onnx_cuda share: their arguments, a network's input and ONNX
// Runtime's output as torchvision_reference.py wrote them, how far ein's output is from ONNX Runtime's, and the check
// both make (every element within 1e-4, and within 1e-4 of the output's largest magnitude: random
// weights can make outputs tiny).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <ein/onnx.hpp>

namespace ein::bench::onnx_reference {

/// `<program> <folder of torchvision_reference.py> <out.json> [--runs N]`.
struct arguments {
  std::string folder, out;
  int runs = 30;
};

/// The arguments of `argv`, or nothing after printing the usage.
inline std::optional<arguments> parse(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--runs")) {
    std::fprintf(stderr, "usage: %s <folder of torchvision_reference.py> <out.json> [--runs N]\n", argv[0]);
    return std::nullopt;
  }
  return arguments{argv[1], argv[2], argc == 5 ? std::max(1, std::atoi(argv[4])) : 30};
}

/// The input ONNX Runtime ran `name` on and its output, from `<folder>/<name>/test_data_set_0`.
struct reference_data {
  std::vector<float> input, output;
};

inline reference_data read(const std::string& folder, const std::string& name) {
  const std::string dir = folder + "/" + name;
  auto values = [&](const char* file) {
    const std::string path = dir + "/test_data_set_0/" + file;
    return ein::onnx::read_values(ein::onnx::read_tensor_file(path), dir, path).f32;
  };
  return {values("input_0.pb"), values("output_0.pb")};
}

/// One network's figures: ein's median time and its output's distance from ONNX Runtime's.
struct result {
  double ms = 0, max_abs = 0, scale = 0;  // scale: the largest |ONNX Runtime's output|

  double relative() const { return scale > 0 ? max_abs / scale : max_abs; }
  bool close() const { return max_abs <= 1e-4 && relative() <= 1e-4; }
};

/// `got` against ONNX Runtime's `want`: the largest difference and the largest |want|.
inline result compare(const std::vector<float>& got, const std::vector<float>& want) {
  result r;
  for (std::size_t i = 0; i < got.size(); ++i) {
    r.max_abs = std::max(r.max_abs, std::abs(double(got[i]) - double(want[i])));
    r.scale = std::max(r.scale, std::abs(double(want[i])));
  }
  return r;
}

}  // namespace ein::bench::onnx_reference
