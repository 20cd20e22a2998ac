// FSRCNN at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/fsrcnn.hpp"

namespace fsrcnn_full {
inline constexpr auto& net = models::fsrcnn<1>::net;
}  // namespace fsrcnn_full
