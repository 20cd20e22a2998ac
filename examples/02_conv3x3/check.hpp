// What both conv3x3 programs (host and cuda) share: random inputs and the interpreter's answer.
#pragma once

#include <chrono>
#include <cstdio>
#include <span>
#include <vector>

#include "conv3x3.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"

namespace conv3x3 {

/// Random inputs (uniform in [-1, 1), seed 2023) and the interpreter's output for them.
struct reference {
  std::vector<float> a, k;
  ein::eval::dense out;

  reference() {
    ir::program p = reify(net, "conv3x3");
    auto env = ein::eval::random_inputs(p, 2023);
    a.assign(env["A"].data.begin(), env["A"].data.end());
    k.assign(env["K"].data.begin(), env["K"].data.end());
    auto start = std::chrono::steady_clock::now();
    out = ein::eval::evaluate(p, env).at("conv");
    std::printf("interpreter: %.1f ms\n", milliseconds_since(start));
  }

  static double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// Prints `max_rel_err=<value>`; the exit status: 0 when below `tolerance` (the plan's: it
  /// follows the arithmetic the plan was generated with).
  int verdict(std::span<const float> computed, double tolerance) const {
    double err = ein::eval::max_rel_error(computed, out);
    std::printf("max_rel_err=%.3g (tolerance %.3g)\n", err, tolerance);
    if (err <= tolerance) return 0;
    std::printf("FAILED: the generated plan differs from the interpreter\n");
    return 1;
  }
};

}  // namespace conv3x3
