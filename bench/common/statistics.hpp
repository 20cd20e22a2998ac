// The statistic the benchmarks report over repeated runs: the median.
#pragma once

#include <algorithm>
#include <vector>

namespace ein::bench {

/// The median of `v` (the mean of the two middle values when their number is even); 0 when `v`
/// is empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace ein::bench
