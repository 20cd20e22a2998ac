// The seven models at EinNet's configurations, batch 1, in element type T: what bench_models plans
// and times.
#pragma once

#include "full_size.hpp"

namespace bench_models {
template <class T>
using sizes = full_size<1, T>;
}  // namespace bench_models
