// CSRNet's back-end at a sixteenth of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/csrnet.hpp"

namespace csrnet_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::csrnet<2, 16, T>::net;
}  // namespace csrnet_small
