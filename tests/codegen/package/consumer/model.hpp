// The consumer's model: y = relu(A · B).
#pragma once

#include "ein/ein.hpp"

namespace consumer_model {
using namespace ein;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr weight<"B", float, 5, 3> B;
inline constexpr auto net = program(ops::relu<"y">(ops::matmul<"ab">(A, B)));
}  // namespace consumer_model
