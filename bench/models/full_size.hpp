// The seven models at EinNet's configurations, at batch Batch: what full.hpp (batch 1) and
// full16.hpp (batch 16) give bench_models.
#pragma once

#include <cstdint>

#include "../../examples/models/csrnet.hpp"
#include "../../examples/models/dcgan.hpp"
#include "../../examples/models/fsrcnn.hpp"
#include "../../examples/models/gcn.hpp"
#include "../../examples/models/infogan.hpp"
#include "../../examples/models/longformer.hpp"
#include "../../examples/models/resnet18.hpp"

namespace bench_models {
template <std::int64_t Batch>
struct full_size {
  using dcgan = models::dcgan<Batch>;
  using infogan = models::infogan<Batch>;
  using resnet18 = models::resnet18<Batch>;
  using fsrcnn = models::fsrcnn<Batch>;
  using csrnet = models::csrnet<Batch>;
  using gcn = models::gcn<Batch>;
  using longformer = models::longformer<Batch>;
};
}  // namespace bench_models
