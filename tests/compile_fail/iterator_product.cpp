// Must not compile: an index that multiplies two iterators.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr input<"B", float, 5, 6> B;
inline constexpr auto y = def<"y">(over(i, j), A(i * j, j));
}  // namespace model

int main() {}
