// Must not compile: two tensors named A with different shapes.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr input<"B", float, 5, 6> B;
inline constexpr input<"A", float, 4, 6> A2;
inline constexpr auto z = def<"z">(over(i, j), sum(k)(A(i, k) * B(k, j)));
inline constexpr auto net = program(z, def<"w">(over(i, j), A2(i, j)));
}  // namespace model

int main() {}
