// InfoGAN's generator at a sixteenth of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/infogan.hpp"

namespace infogan_small {
inline constexpr auto& net = models::infogan<2, 16>::net;
}  // namespace infogan_small
