// CSRNet's back-end at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/csrnet.hpp"

namespace csrnet_full {
inline constexpr auto& net = models::csrnet<1>::net;
}  // namespace csrnet_full
