// FSRCNN at a quarter of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/fsrcnn.hpp"

namespace fsrcnn_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::fsrcnn<2, 4, T>::net;
}  // namespace fsrcnn_small
