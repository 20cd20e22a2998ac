// The seven models at EinNet's configurations, batch 16 (its evaluation's other batch): what
// bench_models plans and times with EIN_BENCH_MODELS_SIZE=full16.
#pragma once

#include "full_size.hpp"

namespace bench_models {
using sizes = full_size<16>;
}  // namespace bench_models
