// y = relu(x · W) through its generated host plan: the product, a temporary, is a library
// matmul (CBLAS, where ein_generate found one), then relu an eOperator; checked against the
// interpreter.
#include <cstdio>
#include <span>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/random.hpp"
#include "ein_generated/matmul.hpp"  // written by ein_generate
#include "matmul.hpp"

int main() {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(matmul::net)>>;
  std::printf("%s", plan::description.data());

  ein::ir::program p = ein::reify(matmul::net, "matmul");
  auto env = ein::eval::random_inputs(p, 1);
  std::vector<float> x(env["x"].data.begin(), env["x"].data.end());
  std::vector<float> w(env["W"].data.begin(), env["W"].data.end());
  std::vector<float> y(64 * 128);
  ein::run(matmul::net, {{"x", x}, {"W", w}, {"y", y}});

  double err = ein::eval::max_rel_error(std::span<const float>(y), ein::eval::evaluate(p, env).at("y"));
  std::printf("max_rel_err=%.3g\n", err);
  return err < 1e-5 ? 0 : 1;
}
