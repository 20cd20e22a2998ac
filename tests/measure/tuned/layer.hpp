// The model of the tuned plan's test (test_measure_tuned): a transpose of A added to B, one
// eOperator of 2^16 outputs (its default shares the rows among threads) that reads A across its
// rows, where a blocking of the two loops can pay.
#pragma once

#include "ein/ein.hpp"

namespace measure_tuned {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr input<"A", float, 256, 256> A;
inline constexpr input<"B", float, 256, 256> B;
inline constexpr auto y = def<"y">(over(i, j), A(j, i) + B(i, j));
inline constexpr auto net = program(y);
}  // namespace measure_tuned
