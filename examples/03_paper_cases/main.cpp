// EinNet's five cases through the plan a cuda build chooses, generated as host code
// (ein_generate PLAN_FOR cuda): prints the plan (which kernels each case became) and checks
// every output against the interpreter.
#include <cstdio>
#include <utility>
#include <vector>

#include "check.hpp"
#include "ein_generated/paper_cases.hpp"  // written by ein_generate: ein::run now uses this plan
#include "paper_cases.hpp"

int main() {
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(paper_cases::net)>>;
  std::printf("%s", plan::description.data());
  paper_cases::reference ref;
  auto outputs = ref.outputs;
  std::vector<ein::runtime::binding> buffers;
  for (auto& [name, data] : ref.tensors) buffers.emplace_back(name, std::as_const(data));
  for (auto& [name, data] : outputs) buffers.emplace_back(name, data);
  auto start = std::chrono::steady_clock::now();
  ein::run(paper_cases::net, ein::runtime::bindings(std::move(buffers)));
  std::printf("generated host plan: %.1f ms\n", paper_cases::reference::milliseconds_since(start));
  return ref.verdict(outputs, plan::tolerance);
}
