// The median of a kernel's timed runs, as every timer and tuner of ein takes it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ein::measure {

/// The median of `times` (the mean of the two middle ones for an even count); 0 for none.
inline double median(std::vector<double> times) {
  const std::size_t n = times.size();
  if (n == 0) return 0;
  std::sort(times.begin(), times.end());
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

}  // namespace ein::measure
