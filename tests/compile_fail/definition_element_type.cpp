// Must not compile: a definition that names int as its element type.
#include "ein/front.hpp"

namespace model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", half, 4> A;
inline constexpr auto y = def<"y", int>(over(i), A(i));
}  // namespace model

int main() {}
