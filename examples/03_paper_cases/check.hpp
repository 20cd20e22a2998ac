// What both paper_cases programs (host and cuda) share: random inputs for every tensor and the
// interpreter's value of every output.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "paper_cases.hpp"

namespace paper_cases {

/// Random inputs and weights (uniform in [-1, 1), seed 2023), buffers for the outputs, and the
/// interpreter's outputs for those inputs.
struct reference {
  ir::program program = reify(net, "paper_cases");
  std::map<std::string, std::vector<float>> tensors;  // inputs and weights
  std::map<std::string, std::vector<float>> outputs;  // what a plan writes, sized
  ein::eval::bindings expected;

  reference() {
    auto env = ein::eval::random_inputs(program, 2023);
    for (auto& [name, value] : env) tensors[name].assign(value.data.begin(), value.data.end());
    auto start = std::chrono::steady_clock::now();
    auto all = ein::eval::evaluate(program, env);
    std::printf("interpreter: %.1f ms\n", milliseconds_since(start));
    for (auto& name : program.outputs) {
      expected[name] = all.at(name);
      outputs[name].assign(expected[name].data.size(), -7.0f);
    }
  }

  static double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// Prints each output's `max_rel_err`; the number of outputs at `tolerance` or more from the
  /// interpreter's (the exit status). The tolerance is the plan's: it follows the arithmetic the
  /// plan was generated with.
  int verdict(const std::map<std::string, std::vector<float>>& computed, double tolerance) const {
    int failed = 0;
    for (auto& name : program.outputs) {
      double err = ein::eval::max_rel_error(std::span<const float>(computed.at(name)), expected.at(name));
      std::printf("%-15s max_rel_err=%.3g\n", name.c_str(), err);
      failed += !(err <= tolerance);
    }
    if (failed) std::printf("FAILED: %d outputs of the generated plan differ from the interpreter\n", failed);
    return failed;
  }
};

}  // namespace paper_cases
