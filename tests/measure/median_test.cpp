// measure::median, the one median of timed runs that the host timer, the GPU timer and the CUDA
// tuner take.
#include <doctest/doctest.h>

#include <vector>

#include "ein/measure/median.hpp"
#include "ein/measure/timing.hpp"

namespace median_test {

TEST_CASE("median: the middle time of an odd count, the mean of the two middle ones of an even count") {
  CHECK(ein::measure::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(ein::measure::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(ein::measure::median({5.0}) == 5.0);
  CHECK(ein::measure::median({}) == 0.0);
}

TEST_CASE("time_in_turns: each kernel's fastest run and its median over its runs") {
  int calls = 0;
  const ein::measure::timing_options o{.warmup = 1, .runs = 3};
  const auto t = ein::measure::time_in_turns({[&] { ++calls; }}, o);
  REQUIRE(t.size() == 1);
  CHECK(t[0].runs == 3);
  CHECK(t[0].seconds <= t[0].median);
  CHECK(calls == 4);
}

}  // namespace median_test
