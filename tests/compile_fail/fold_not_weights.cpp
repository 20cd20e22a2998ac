// Must not compile: a folded batch normalization whose mean is an input, not a weight.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr input<"X", float, 1, 5, 5, 3> X;
inline constexpr weight<"K", float, 3, 3, 4, 3> K;
inline constexpr weight<"G", float, 4> G;
inline constexpr weight<"B", float, 4> B;
inline constexpr input<"M", float, 4> M;
inline constexpr weight<"V", float, 4> V;
inline constexpr auto y = ops::conv2d_batch_norm<"y", ops::nhwc, 1, 1>(X, K, G, B, M, V);
}  // namespace model

int main() {}
