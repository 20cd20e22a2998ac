// ResNet-18 at a sixteenth of its channels on a 32×32 image, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/resnet18.hpp"

namespace resnet18_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::resnet18<2, 16, 32, T>::net;
}  // namespace resnet18_small
