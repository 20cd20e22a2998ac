// The 3×3 convolution through its generated host plan (the one the search chose: its statistics
// and kernels are the plan's description), checked against the interpreter.
#include <cstdio>
#include <vector>

#include "check.hpp"
#include "conv3x3.hpp"
#include "ein_generated/conv3x3.hpp"  // written by ein_generate: ein::run now uses this plan

int main() {
  using plan = ein::runtime::plan<std::remove_cvref_t<decltype(conv3x3::net)>>;
  std::printf("%s", plan::description.data());
  conv3x3::reference ref;
  std::vector<float> out(1 * 7 * 7 * 512);
  auto start = std::chrono::steady_clock::now();
  ein::run(conv3x3::net, {{"A", ref.a}, {"K", ref.k}, {"conv", out}});
  std::printf("generated host plan: %.1f ms\n", conv3x3::reference::milliseconds_since(start));
  return ref.verdict(out);
}
