// FSRCNN at a quarter of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/fsrcnn.hpp"

namespace fsrcnn_small {
inline constexpr auto& net = models::fsrcnn<2, 4>::net;
}  // namespace fsrcnn_small
