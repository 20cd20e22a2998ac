// Must not compile: a definition named A in a program that reads a tensor named A.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", float, 4> A;
inline constexpr auto d = def<"A">(over(i), A(i) * 2.0);
inline constexpr auto y = def<"y">(over(i), d(i) + A(i));
inline constexpr auto net = program(y);
}  // namespace model

int main() {}
