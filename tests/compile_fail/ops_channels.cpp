// Must not compile: a convolution whose input and kernel channels differ.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr input<"B", float, 5, 6> B;
inline constexpr input<"X", float, 1, 5, 5, 3> X;
inline constexpr weight<"K", float, 3, 3, 8, 4> K;
inline constexpr auto y = ops::conv2d<"y", ops::nhwc, 1, 1>(X, K);
}  // namespace model

int main() {}
