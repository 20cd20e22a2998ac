// The seven models at EinNet's configurations, batch 16 (its evaluation's other batch): what
// bench_models plans and times with EIN_BENCH_MODELS_SIZE=full16.
#pragma once

#include "../../examples/models/csrnet.hpp"
#include "../../examples/models/dcgan.hpp"
#include "../../examples/models/fsrcnn.hpp"
#include "../../examples/models/gcn.hpp"
#include "../../examples/models/infogan.hpp"
#include "../../examples/models/longformer.hpp"
#include "../../examples/models/resnet18.hpp"

namespace bench_models {
using dcgan = models::dcgan<16>;
using infogan = models::infogan<16>;
using resnet18 = models::resnet18<16>;
using fsrcnn = models::fsrcnn<16>;
using csrnet = models::csrnet<16>;
using gcn = models::gcn<16>;
using longformer = models::longformer<16>;
}  // namespace bench_models
