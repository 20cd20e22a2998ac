// InfoGAN's generator at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/infogan.hpp"

namespace infogan_full {
inline constexpr auto& net = models::infogan<1>::net;
}  // namespace infogan_full
