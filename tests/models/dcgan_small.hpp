// DCGAN's generator at a sixteenth of its channels, batch 2: what the model test builds and checks.
#pragma once

#include "../../examples/models/dcgan.hpp"

namespace dcgan_small {
inline constexpr auto& net = models::dcgan<2, 16>::net;
}  // namespace dcgan_small
