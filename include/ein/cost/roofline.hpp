// The roofline cost model: time from FLOPs, bytes and a device profile; needs no GPU.
#pragma once

#include <algorithm>

#include "ein/cost/model.hpp"
#include "ein/cost/profile.hpp"

namespace ein::cost {

/// seconds = launch + max(FLOPs / (peak · efficiency), bytes / (bandwidth · efficiency)).
/// Library calls reach the profile's library curve of FP32 (or TF32) peak; generated kernels
/// (eOperators) its fixed fractions of FP32 peak and DRAM bandwidth, so they are never free.
class roofline final : public model {
 public:
  explicit roofline(device_profile p) : profile_(std::move(p)) {}

  double seconds(const workload& w) const override {
    const auto& p = profile_;
    double compute, memory;
    if (w.kind == workload::engine::library) {
      bool tensor_cores = p.use_tf32 && w.op != match::op_kind::elementwise;
      double peak = tensor_cores ? p.tf32_flops : p.fp32_flops;
      compute = w.flops / (peak * p.curve(w.op).at(w.flops));
      memory = w.bytes / p.dram_bytes;
    } else {
      compute = w.flops / (p.fp32_flops * p.eoperator_compute);
      memory = w.bytes / (p.dram_bytes * p.eoperator_bandwidth);
    }
    return p.launch_seconds + std::max(compute, memory);
  }

  std::string describe() const override {
    return "roofline (" + profile_.name + ", " + profile_.source + ")";
  }

  const device_profile& profile() const { return profile_; }

 private:
  device_profile profile_;
};

}  // namespace ein::cost
