// An ONNX file's gradient through ein_generate (ONNX ... GRADIENT *): examples/04_onnx's small CNN
// (a convolution, a depthwise convolution with ReLU6, pooling, a classifier, softmax) imported and
// differentiated with respect to its input and every initializer: the gradient program against
// central finite differences of the imported graph, and the generated plan against the
// interpreter's gradient program, on random inputs, weights and seeds.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "ein/grad/check.hpp"
#include "against_interpreter.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/onnx/import.hpp"
#include "ein_generated/grad_tiny_cnn.hpp"

namespace {

ein::ir::program tiny_cnn() {
  ein::onnx::import_options o;
  o.shapes["input"] = {1, 3, 16, 16};
  return ein::onnx::import_file(EIN_TINY_CNN, o);
}

std::vector<std::string> every_tensor(const ein::ir::program& p) {
  std::vector<std::string> names;
  for (auto& t : p.tensors) names.push_back(t.name);
  return names;
}

}  // namespace

TEST_CASE("an imported graph's gradient agrees with finite differences of the graph") {
  auto p = tiny_cnn();
  auto targets = every_tensor(p);
  auto g = ein::grad::gradient(p, targets);
  for (std::uint64_t seed : {1, 2}) {
    auto r = ein::grad::check_gradient(p, g, targets, seed);
    CHECK_MESSAGE(r.ok(), r.failure);
    CHECK(r.directions > 0);
  }
}

TEST_CASE("an imported graph's gradient plan equals the interpreter's gradient program") {
  using plan = ein::runtime::generated_plan<ein_generated::grad_tiny_cnn::program>;
  INFO(plan::description);
  auto p = tiny_cnn();
  auto g = ein::grad::gradient(p, every_tensor(p)).program;
  ein::eval::bindings env = ein::eval::random_inputs(g, 9);
  grad_test::check_against_interpreter(ein_generated::grad_tiny_cnn::net, g, env, plan::tolerance);
}
