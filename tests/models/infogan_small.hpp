// InfoGAN's generator at a sixteenth of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/infogan.hpp"

namespace infogan_small {
/// The network in element type T: float, or ein::bfloat16 (each is generated and checked).
template <class T>
inline constexpr auto& net = models::infogan<2, 16, T>::net;
}  // namespace infogan_small
