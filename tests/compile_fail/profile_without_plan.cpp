// Must not compile: ein::profile of a program whose generated plan is not included (the
// interpreter has no steps to time).
#include <vector>

#include "ein/ein.hpp"
#include "ein/profile.hpp"

using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", float, 4> A;
inline constexpr auto twice = def<"twice">(over(i), A(i) + A(i));
inline constexpr auto net = program(twice);

int main() {
  std::vector<float> a(4), out(4);
  auto prepared = ein::prepare(net, {});
  (void)ein::profile(prepared, {{"A", a}, {"twice", out}});
}
