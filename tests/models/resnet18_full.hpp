// ResNet-18 at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/resnet18.hpp"

namespace resnet18_full {
inline constexpr auto& net = models::resnet18<1>::net;
}  // namespace resnet18_full
