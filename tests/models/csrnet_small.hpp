// CSRNet's back-end at a sixteenth of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/csrnet.hpp"

namespace csrnet_small {
inline constexpr auto& net = models::csrnet<2, 16>::net;
}  // namespace csrnet_small
