// The seven models that bench_models runs, in one list for both backends; the generated plans,
// the size header (full.hpp, full16.hpp or small.hpp: EIN_BENCH_MODELS_SIZES, each defining
// bench_models::sizes<T>) and the element type (EIN_BENCH_MODELS_ELEMENT) come from the build.
#pragma once

#include <string>

#include "ein_generated/bench_model_csrnet.hpp"
#include "ein_generated/bench_model_dcgan.hpp"
#include "ein_generated/bench_model_fsrcnn.hpp"
#include "ein_generated/bench_model_gcn.hpp"
#include "ein_generated/bench_model_infogan.hpp"
#include "ein_generated/bench_model_longformer.hpp"
#include "ein_generated/bench_model_resnet18.hpp"
#include EIN_BENCH_MODELS_SIZES
#include "run_model.hpp"

namespace ein::bench::models {

// DCGAN's batch-normalization variances are V1…V4; ResNet's conv_bn ones end with `_v`.
inline bool dcgan_variance(const std::string& t) { return t.size() == 2 && t[0] == 'V'; }
inline bool resnet_variance(const std::string& t) { return t.ends_with("_v"); }

/// Every model run on `memory` (run_model), in the manifest's order.
template <class Memory>
json run_all(const std::string& work, Memory& memory) {
  using bm = ::bench_models::sizes<EIN_BENCH_MODELS_ELEMENT>;
  json all = json::array();
  all.push_back(run_model<bm::dcgan>({"dcgan", dcgan_variance}, work, memory));
  all.push_back(run_model<bm::infogan>({"infogan"}, work, memory));
  all.push_back(run_model<bm::resnet18>({"resnet18", resnet_variance}, work, memory));
  all.push_back(run_model<bm::fsrcnn>({"fsrcnn"}, work, memory));
  all.push_back(run_model<bm::csrnet>({"csrnet"}, work, memory));
  all.push_back(run_model<bm::gcn>({"gcn", resnet_variance}, work, memory));
  all.push_back(run_model<bm::longformer>(
      {"longformer"}, work, memory,
      {{"heads", bm::longformer::head_count}, {"half_window", bm::longformer::half_window},
       {"dilation", bm::longformer::dilation}}));
  return all;
}

}  // namespace ein::bench::models
