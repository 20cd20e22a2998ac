// Trains mlp::net by gradient descent with its generated gradient plan: each step runs
// ein_generated::mlp_training::net on the batch with the seed loss_grad = 1/32 (the gradient of
// the mean loss), which writes the losses and the gradient of every weight, and moves each weight
// against its gradient. The targets are tanh(x · A) for a fixed random A. The first step's
// gradients are checked against the interpreter, which evaluates the same gradient program in
// double; the mean loss must fall below a tenth of where it started.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/random.hpp"
#include "ein/grad/gradient.hpp"
#include "ein_generated/mlp_training.hpp"  // written by ein_generate: the gradient of mlp::net
#include "mlp.hpp"

namespace {

std::vector<float> random_floats(std::size_t n, ein::eval::random_stream& rng, float scale) {
  std::vector<float> v(n);
  for (auto& x : v) x = scale * static_cast<float>(rng.uniform());
  return v;
}

ein::eval::dense as_dense(const std::vector<float>& v, std::vector<std::int64_t> shape) {
  ein::eval::dense d(std::move(shape));
  std::copy(v.begin(), v.end(), d.data.begin());
  return d;
}

}  // namespace

int main() {
  using plan = ein::runtime::generated_plan<ein_generated::mlp_training::program>;
  std::printf("%s", plan::description.data());
  ein::eval::random_stream rng(7);
  std::vector<float> x = random_floats(32 * 8, rng, 1), A = random_floats(8 * 4, rng, 1), t(32 * 4);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 8; ++k) s += x[i * 8 + k] * A[k * 4 + j];
      t[i * 4 + j] = std::tanh(s);
    }
  std::vector<float> W1 = random_floats(16 * 8, rng, 0.5f), b1 = random_floats(16, rng, 0.1f),
                     W2 = random_floats(4 * 16, rng, 0.5f), b2 = random_floats(4, rng, 0.1f);
  std::vector<float> seed(32, 1.0f / 32), loss(32), gW1(W1.size()), gb1(b1.size()), gW2(W2.size()), gb2(b2.size());

  // One training step's gradients: the losses and ∂(mean loss)/∂ each weight.
  auto gradients = [&] {
    ein::run(ein_generated::mlp_training::net,
             {{"x", x}, {"t", t}, {"W1", W1}, {"b1", b1}, {"W2", W2}, {"b2", b2}, {"loss_grad", seed},
              {"loss", loss}, {"W1_grad", gW1}, {"b1_grad", gb1}, {"W2_grad", gW2}, {"b2_grad", gb2}});
    return std::accumulate(loss.begin(), loss.end(), 0.0) / 32;
  };
  const double first = gradients();

  // The same gradient program, evaluated by the interpreter.
  auto p = ein::grad::gradient(ein::reify(mlp::net, "mlp"), {"W1", "b1", "W2", "b2"}).program;
  ein::eval::bindings env{{"x", as_dense(x, {32, 8})},  {"t", as_dense(t, {32, 4})},
                          {"W1", as_dense(W1, {16, 8})}, {"b1", as_dense(b1, {16})},
                          {"W2", as_dense(W2, {4, 16})}, {"b2", as_dense(b2, {4})},
                          {"loss_grad", as_dense(seed, {32})}};
  auto want = ein::eval::evaluate(p, env);
  double err = 0;
  for (auto [name, got] : {std::pair{"W1_grad", &gW1}, {"b1_grad", &gb1}, {"W2_grad", &gW2}, {"b2_grad", &gb2}})
    err = std::max(err, ein::eval::max_rel_error(std::span<const float>(*got), want.at(name)));

  double last = first;
  for (int step = 0; step < 300; ++step) {
    for (auto [w, g] : {std::pair{&W1, &gW1}, {&b1, &gb1}, {&W2, &gW2}, {&b2, &gb2}})
      for (std::size_t k = 0; k < w->size(); ++k) (*w)[k] -= 0.2f * (*g)[k];
    last = gradients();
  }
  std::printf("mean loss %.4f, after 300 steps %.4f; first gradients' max_rel_err %.3g (tolerance %.3g)\n", first, last,
              err, plan::tolerance);
  return err <= plan::tolerance && last < first / 10 ? 0 : 1;
}
