// The seven models at EinNet's configurations, batch 1: what bench_models plans and times.
#pragma once

#include "full_size.hpp"

namespace bench_models {
using sizes = full_size<1>;
}  // namespace bench_models
