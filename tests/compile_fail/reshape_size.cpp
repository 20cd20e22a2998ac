// Must not compile: a reshape to a different number of elements.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr input<"X", float, 2, 3, 4> X;
inline constexpr auto y = ops::reshape<"y", 5, 5>(X);
}  // namespace model

int main() {}
