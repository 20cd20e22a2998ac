// Must not compile: a pooling padded by more than half its window (a window in the padding).
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr input<"X", float, 1, 6, 6, 2> X;
inline constexpr auto y = ops::max_pool2d<"y", ops::nhwc, 3, 1, 2>(X);
}  // namespace model

int main() {}
