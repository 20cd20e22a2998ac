// ResNet-18 at batch 16 on 224×224 images: the network whose training step bench_resnet18_training
// times (examples/models/resnet18.hpp).
#pragma once

#include "../../examples/models/resnet18.hpp"

namespace bench_resnet18 {
inline constexpr auto& net = models::resnet18<16>::net;
}  // namespace bench_resnet18
