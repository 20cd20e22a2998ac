// The model of the stage-1 driver's cost-model test: a small fully connected layer.
#pragma once

#include "ein/ein.hpp"

namespace cost_driver {
using namespace ein;
inline constexpr input<"x", float, 16, 32> x;   // (batch, features in)
inline constexpr weight<"W", float, 32, 8> W;   // (features in, features out)
inline constexpr auto net = program(ops::relu<"y">(ops::matmul<"xw">(x, W)));  // (batch, features out)
}  // namespace cost_driver
