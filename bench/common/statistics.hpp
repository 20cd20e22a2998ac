// The statistics the benchmarks report: the median of repeated runs, and how far one output is
// from another.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace ein::bench {

/// The median of `v` (the mean of the two middle values when their number is even); 0 when `v`
/// is empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// max |x - ref| / max |ref| (NaN anywhere, or sizes that differ: infinity), as
/// ein::eval::max_rel_error.
inline double max_rel_error(const std::vector<float>& x, const std::vector<float>& ref) {
  if (x.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double scale = 0, err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double d = std::abs(static_cast<double>(x[i]) - ref[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
    scale = std::max(scale, std::abs(static_cast<double>(ref[i])));
  }
  return scale == 0 ? err : err / scale;
}

}  // namespace ein::bench
