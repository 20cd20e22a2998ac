// GCN at a thirty-second of its backbone's channels, one bottleneck a stage, on a 64×64 image,
// batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/gcn.hpp"

namespace gcn_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::gcn<2, 32, 64, models::stages{1, 1, 1, 1}, 11, T>::net;
}  // namespace gcn_small
