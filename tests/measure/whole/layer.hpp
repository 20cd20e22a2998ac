// The model of the whole-plan check's test (whole_plan.cmake): a Conv3x3 that a host build without
// oneDNN runs as written as one compute-bound eOperator, so that the measured search derives
// another program for it (a product and a sum of shifted slices) and runs the two plans whole.
#pragma once

#include "ein/ein.hpp"

namespace measure_whole {
using namespace ein;
inline constexpr input<"A", float, 1, 16, 16, 128> A;
inline constexpr weight<"K", float, 3, 3, 128, 128> K;
inline constexpr auto net = program(ops::conv2d<"y", ops::nhwc, 1, 1>(A, K));
}  // namespace measure_whole
