// Must not compile: a max reduction over an iterator that the body does not read.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr var<"k"> k;
inline constexpr input<"A", float, 4> A;
inline constexpr auto y = def<"y">(over(i), max(k.in<0, 3>)(A(i)));
}  // namespace model

int main() {}
