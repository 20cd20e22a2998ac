// DCGAN's generator at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/dcgan.hpp"

namespace dcgan_full {
inline constexpr auto& net = models::dcgan<1>::net;
}  // namespace dcgan_full
