// The model: a fully connected layer, y = relu(x · W), written with ein::ops.
#pragma once

#include "ein/ein.hpp"

namespace matmul {
using namespace ein;
inline constexpr input<"x", float, 64, 256> x;    // (batch, features in)
inline constexpr weight<"W", float, 256, 128> W;  // (features in, features out)
inline constexpr auto net = program(ops::relu<"y">(ops::matmul<"xw">(x, W)));  // (batch, features out)
}  // namespace matmul
