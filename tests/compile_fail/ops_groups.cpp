// Must not compile: a grouped convolution whose filters read other than the channels of a group.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr input<"X", float, 1, 6, 5, 5> X;      // NCHW, 6 channels
inline constexpr weight<"K", float, 4, 2, 3, 3> K;     // 4 filters of 2 channels; 2 groups of 6 channels have 3
inline constexpr auto y = ops::grouped_conv2d<"y", 2, ops::nchw, 1, 1>(X, K);
}  // namespace model

int main() {}
