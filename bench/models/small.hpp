// The seven models at the reduced sizes of their tests (tests/models), in element type T: what
// bench_models plans and times where a quick check against PyTorch is wanted.
#pragma once

#include "../../examples/models/csrnet.hpp"
#include "../../examples/models/dcgan.hpp"
#include "../../examples/models/fsrcnn.hpp"
#include "../../examples/models/gcn.hpp"
#include "../../examples/models/infogan.hpp"
#include "../../examples/models/longformer.hpp"
#include "../../examples/models/resnet18.hpp"

namespace bench_models {
template <class T>
struct sizes {
  using dcgan = models::dcgan<2, 16, T>;
  using infogan = models::infogan<2, 16, T>;
  using resnet18 = models::resnet18<2, 16, 32, T>;
  using fsrcnn = models::fsrcnn<2, 4, T>;
  using csrnet = models::csrnet<2, 16, T>;
  using gcn = models::gcn<2, 32, 64, models::stages{1, 1, 1, 1}, 11, T>;
  using longformer = models::longformer<2, 64, 32, 2, 4, 4, 64, T>;
};
}  // namespace bench_models
