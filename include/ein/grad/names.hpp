// The names a gradient program gives what it adds: gradients and seeds `x_grad`, and a fresh name
// where one is taken.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace ein::grad {

/// The name of the gradient of `x`, and of the seed of output `x`: `x_grad`.
inline std::string gradient_name(const std::string& x) { return x + "_grad"; }

/// `base` where `taken` does not hold it, else the first of `base_2`, `base_3`, ... that it does
/// not; the name returned is added to `taken`.
inline std::string unused_name(const std::string& base, std::vector<std::string>& taken) {
  std::string n = base;
  for (int k = 2; std::find(taken.begin(), taken.end(), n) != taken.end(); ++k) n = base + "_" + std::to_string(k);
  taken.push_back(n);
  return n;
}

}  // namespace ein::grad
