// One Longformer layer on a sequence of 64, 32 features in 2 heads, half width 4 at dilation 4,
// 64 hidden units, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/longformer.hpp"

namespace longformer_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::longformer<2, 64, 32, 2, 4, 4, 64, T>::net;
}  // namespace longformer_small
