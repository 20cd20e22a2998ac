// The model of the tuned plan's test (test_measure_tuned): a transpose of A added to B, an
// eOperator of 2^16 outputs (its default shares the rows among threads) that reads A across its
// rows, where a blocking of the two loops can pay; and the same at 64 × 64, which TUNE ON tunes by
// reuse from the first (or the first from it).
#pragma once

#include "ein/ein.hpp"

namespace measure_tuned {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr input<"A", float, 256, 256> A;
inline constexpr input<"B", float, 256, 256> B;
inline constexpr input<"C", float, 64, 64> C;
inline constexpr input<"D", float, 64, 64> D;
inline constexpr auto y = def<"y">(over(i, j), A(j, i) + B(i, j));
inline constexpr auto z = def<"z">(over(i, j), C(j, i) + D(i, j));
inline constexpr auto net = program(y, z);
}  // namespace measure_tuned
