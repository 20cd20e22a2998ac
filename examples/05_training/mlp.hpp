// The model a training step differentiates: a two-layer perceptron and its squared error against
// a target, one loss per sample, written with ein::ops and one definition.
#pragma once

#include "ein/ein.hpp"

namespace mlp {
using namespace ein;
inline constexpr input<"x", float, 32, 8> x;      // (batch, features in)
inline constexpr input<"t", float, 32, 4> t;      // (batch, targets)
inline constexpr weight<"W1", float, 16, 8> W1;   // (hidden, features in), as PyTorch's Linear
inline constexpr weight<"b1", float, 16> b1;
inline constexpr weight<"W2", float, 4, 16> W2;   // (targets, hidden)
inline constexpr weight<"b2", float, 4> b2;
inline constexpr auto h = ops::relu<"h">(ops::linear<"z">(x, W1, b1));  // (batch, hidden)
inline constexpr auto y = ops::linear<"y">(h, W2, b2);                   // (batch, targets)
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
// loss[i] = Σ_j (y[i, j] − t[i, j])²
inline constexpr auto loss = def<"loss">(over(i), sum(j)((y(i, j) - t(i, j)) * (y(i, j) - t(i, j))));
inline constexpr auto net = program(loss);
}  // namespace mlp
