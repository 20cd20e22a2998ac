// Must not compile: two different definitions named d in one program.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4, 5> A;
inline constexpr input<"B", float, 5, 6> B;
inline constexpr auto d1 = def<"d">(over(i, j), A(i, j));
inline constexpr auto d2 = def<"d">(over(i, j), A(i, j) * 2.0);
inline constexpr auto y = def<"y">(over(i, j), d1(i, j) + d2(i, j));
inline constexpr auto net = program(y);
}  // namespace model

int main() {}
