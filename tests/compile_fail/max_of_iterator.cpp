// Must not compile: binary max of an iterator and a value (iterators only index accesses).
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", float, 4> A;
inline constexpr auto y = def<"y">(over(i), max(i, A(i)));
}  // namespace model

int main() {}
