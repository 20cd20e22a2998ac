// Must not compile: two definitions named d, alike but for an index constant, in one program.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", float, 4> A;
inline constexpr auto d1 = def<"d">(over(i.in<0, 4>), A(i + 1));
inline constexpr auto d2 = def<"d">(over(i.in<0, 4>), A(i + 2));
inline constexpr auto y = def<"y">(over(i), d1(i) + d2(i));
}  // namespace model

int main() {}
