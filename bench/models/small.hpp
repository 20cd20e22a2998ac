// The seven models at the reduced sizes of their tests (tests/models): what bench_models plans
// and times where a quick check against PyTorch is wanted.
#pragma once

#include "../../examples/models/csrnet.hpp"
#include "../../examples/models/dcgan.hpp"
#include "../../examples/models/fsrcnn.hpp"
#include "../../examples/models/gcn.hpp"
#include "../../examples/models/infogan.hpp"
#include "../../examples/models/longformer.hpp"
#include "../../examples/models/resnet18.hpp"

namespace bench_models {
struct sizes {
  using dcgan = models::dcgan<2, 16>;
  using infogan = models::infogan<2, 16>;
  using resnet18 = models::resnet18<2, 16, 32>;
  using fsrcnn = models::fsrcnn<2, 4>;
  using csrnet = models::csrnet<2, 16>;
  using gcn = models::gcn<2, 32, 64, models::stages{1, 1, 1, 1}>;
  using longformer = models::longformer<2, 64, 32, 2, 4, 4, 64>;
};
}  // namespace bench_models
