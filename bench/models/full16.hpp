// The seven models at EinNet's configurations, batch 16 (its evaluation's other batch): what
// bench_models plans and times with EIN_BENCH_MODELS_SIZE=full16, in element type T.
#pragma once

#include "full_size.hpp"

namespace bench_models {
template <class T>
using sizes = full_size<16, T>;
}  // namespace bench_models
