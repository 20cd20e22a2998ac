// Must not compile: a transposed convolution whose output padding is not below its stride.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr input<"X", float, 1, 4, 4, 2> X;
inline constexpr weight<"K", float, 3, 3, 2, 2> K;
inline constexpr auto y = ops::conv_transpose2d<"y", ops::nhwc, 2, 1, 2>(X, K);
}  // namespace model

int main() {}
