// The seven models at EinNet's configurations, at batch Batch, in element type T: what full.hpp
// (batch 1) and full16.hpp (batch 16) give bench_models.
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
template <std::int64_t Batch, class T>
struct full_size {
  using dcgan = models::dcgan<Batch, 1, T>;
  using infogan = models::infogan<Batch, 1, T>;
  using resnet18 = models::resnet18<Batch, 1, 224, T>;
  using fsrcnn = models::fsrcnn<Batch, 1, T>;
  using csrnet = models::csrnet<Batch, 1, T>;
  using gcn = models::gcn<Batch, 1, 224, models::stages{}, 11, T>;
  using longformer = models::longformer<Batch, 10000, 512, 8, 1000, 4, 4 * 512, T>;
};
}  // namespace bench_models
