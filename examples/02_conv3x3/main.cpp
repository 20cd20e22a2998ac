// The 3×3 convolution through its generated host plan (the one the search chose: its statistics
// and kernels are the plan's description), checked against the interpreter: once through
// ein::run, and through a plan prepared once for its weights (ein::prepare) and run on inputs,
// whose steps ein::profile then times.
#include <cstdio>
#include <vector>

#include "check.hpp"
#include "ein/profile.hpp"
#include "conv3x3.hpp"
#include "ein_generated/conv3x3.hpp"  // written by ein_generate: ein::run now uses this plan

int main() {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(conv3x3::net)>>;
  std::printf("%s", plan::description.data());
  conv3x3::reference ref;
  std::vector<float> out(1 * 7 * 7 * 512);
  auto start = std::chrono::steady_clock::now();
  ein::run(conv3x3::net, {{"A", ref.a}, {"K", ref.k}, {"conv", out}});
  std::printf("generated host plan: %.1f ms\n", conv3x3::reference::milliseconds_since(start));
  if (int failed = ref.verdict(out, plan::tolerance)) return failed;

  // The weights bound once: the plan's weight transforms (steps marked [weight transform]) run
  // here, and `net` keeps what the other steps read; each run binds the input and the output.
  start = std::chrono::steady_clock::now();
  auto net = ein::prepare(conv3x3::net, {{"K", ref.k}});
  std::printf("prepared (%zu bytes of weights): %.1f ms\n", net.storage_bytes(),
              conv3x3::reference::milliseconds_since(start));
  std::vector<float> prepared_out(out.size());
  for (int run = 0; run < 3; ++run) {
    start = std::chrono::steady_clock::now();
    net.run({{"A", ref.a}, {"conv", prepared_out}});
    std::printf("prepared run %d: %.1f ms\n", run + 1, conv3x3::reference::milliseconds_since(start));
  }
  // Where a prepared run spends its time, step by step (medians over about a second of runs).
  std::printf("%s", ein::profile(net, {{"A", ref.a}, {"conv", prepared_out}}).table().c_str());
  return ref.verdict(prepared_out, plan::tolerance);
}
