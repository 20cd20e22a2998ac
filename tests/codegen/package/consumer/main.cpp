// Runs the consumer's generated plan and checks one element by hand.
#include <cstdio>
#include <vector>

#include "ein_generated/consumer_plan.hpp"
#include "model.hpp"

int main() {
  static_assert(ein::runtime::has_plan_v<decltype(consumer_model::net)>);
  std::vector<float> a(20), b(15), y(12);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  ein::run(consumer_model::net, {{"A", a}, {"B", b}, {"y", y}});
  float expect = 0;
  for (int k = 0; k < 5; ++k) expect += a[k] * b[k * 3];
  expect = expect > 0 ? expect : 0;
  std::printf("y[0] = %g (expected %g)\n", y[0], expect);
  return y[0] == expect ? 0 : 1;
}
