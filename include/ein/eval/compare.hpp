// Comparing a computed tensor with the interpreter's reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "ein/eval/interpret.hpp"

namespace ein::eval {

/// max_i |x_i - ref_i| / max_j |ref_j|: the error relative to the reference's scale, so that
/// outputs near zero after cancellation do not inflate it. A NaN where the reference has none
/// gives +inf; a NaN reference element (a function outside its domain: sqrt of a negative) must
/// be matched by a NaN. An infinite reference element (a max or min over no point) must be
/// matched exactly and is left out of the scale.
template <class T>
double max_rel_error(std::span<const T> x, const dense& ref) {
  if (x.size() != ref.data.size()) return std::numeric_limits<double>::infinity();
  double scale = 0, err = 0;
  for (double r : ref.data)
    if (std::isfinite(r)) scale = std::max(scale, std::abs(r));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (static_cast<double>(x[i]) == ref.data[i]) continue;
    if (std::isnan(ref.data[i]) && std::isnan(static_cast<double>(x[i]))) continue;
    double d = std::abs(static_cast<double>(x[i]) - ref.data[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
  }
  return scale == 0 ? err : err / scale;
}

inline double max_rel_error(const dense& x, const dense& ref) {
  if (x.shape != ref.shape || x.lower != ref.lower) return std::numeric_limits<double>::infinity();
  return max_rel_error(std::span<const double>(x.data), ref);
}

}  // namespace ein::eval
