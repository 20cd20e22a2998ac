// GCN at the configuration of EinNet's artifact, batch 1: the slow test plans it.
#pragma once

#include "../../examples/models/gcn.hpp"

namespace gcn_full {
inline constexpr auto& net = models::gcn<1>::net;
}  // namespace gcn_full
