// The seven models at EinNet's configurations, batch 1: what bench_models plans and times.
#pragma once

#include "../../examples/models/csrnet.hpp"
#include "../../examples/models/dcgan.hpp"
#include "../../examples/models/fsrcnn.hpp"
#include "../../examples/models/gcn.hpp"
#include "../../examples/models/infogan.hpp"
#include "../../examples/models/longformer.hpp"
#include "../../examples/models/resnet18.hpp"

namespace bench_models {
using dcgan = models::dcgan<1>;
using infogan = models::infogan<1>;
using resnet18 = models::resnet18<1>;
using fsrcnn = models::fsrcnn<1>;
using csrnet = models::csrnet<1>;
using gcn = models::gcn<1>;
using longformer = models::longformer<1>;
}  // namespace bench_models
