// Must not compile: a tensor of int.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr input<"B", float, 5, 6> B;
inline constexpr input<"C", int, 4> C;
inline constexpr auto y = def<"y">(over(i), C(i));
}  // namespace model

int main() {}
