// The points a tuner measures when it searches a kernel's space from scratch: the default first,
// then the others in a random order, as many as the trials allow.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ein/eval/random.hpp"

namespace ein::measure {

/// `fixed` (the space's default point), then up to `trials` - 1 other points of `space`, in the
/// order a shuffle drawn from `seed` gives them.
/// Example: drawn_schedules(tune::host_default(k), tune::host_space(k), 1, 32).
template <class Schedule>
std::vector<Schedule> drawn_schedules(const Schedule& fixed, const std::vector<Schedule>& space, std::uint64_t seed,
                                      std::int64_t trials) {
  std::vector<Schedule> others;
  for (auto& p : space)
    if (p != fixed) others.push_back(p);
  eval::random_stream rng(seed);
  for (std::size_t i = others.size(); i > 1; --i)
    std::swap(others[i - 1], others[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i) - 1))]);
  std::vector<Schedule> r{fixed};
  for (auto& p : others)
    if (static_cast<std::int64_t>(r.size()) < trials) r.push_back(p);
  return r;
}

}  // namespace ein::measure
