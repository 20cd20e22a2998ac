// One Longformer layer at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/longformer.hpp"

namespace longformer_full {
inline constexpr auto& net = models::longformer<1>::net;
}  // namespace longformer_full
