// The roofline cost model: time from FLOPs, bytes and a device profile; needs no GPU.
#pragma once

#include <algorithm>

#include "ein/cost/model.hpp"
#include "ein/cost/profile.hpp"

namespace ein::cost {

/// seconds = launch + max(FLOPs / (peak · efficiency), bytes / (bandwidth · efficiency)).
/// Library calls reach the profile's library curve of FP32 (or TF32) peak, and no more than their
/// occupancy allows (`occupancy`); generated kernels (eOperators) the profile's fixed fractions
/// of FP32 peak and DRAM bandwidth, so they are never free. A 3×3 convolution the library runs
/// with Winograd does the profile's fraction of its FLOPs. Where the profile says a batch of
/// matrix products runs as one call per product (`gemm_batch_as_calls`, the host's CBLAS), a
/// batch of b costs b calls of its FLOPs / b and bytes / b each, and never less than one call
/// of all its FLOPs.
class roofline final : public model {
 public:
  explicit roofline(device_profile p) : profile_(std::move(p)) {}

  /// The fraction of the SMs a library operator keeps busy: a GEMM (and an implicit-GEMM
  /// convolution) gives each thread block one output tile, so batch·⌈rows/tile⌉·⌈cols/tile⌉
  /// blocks run on `sm_count` SMs; below one wave the idle SMs are lost (NVIDIA Deep Learning
  /// Performance, "Matrix Multiplication Background User's Guide": tile and wave
  /// quantization). Two GEMMs of equal FLOPs then differ by
  /// their output: Conv3x3's Matmul of 49 × 4608 (K = 512) has 72 tiles of 64 × 64, the
  /// im2col Matmul of 49 × 512 (K = 4608) has 8, and fills 8 of 132 SMs. Splitting K, which
  /// some library heuristics do, is not credited. 1 when the profile or the workload does not
  /// say.
  double occupancy(const workload& w) const {
    const auto& p = profile_;
    if (p.sm_count <= 0 || w.rows <= 0 || w.cols <= 0) return 1.0;
    auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
    double tiles = static_cast<double>(std::max<std::int64_t>(w.batch, 1)) *
                   static_cast<double>(ceil_div(w.rows, p.tile_rows)) *
                   static_cast<double>(ceil_div(w.cols, p.tile_cols));
    return std::min(1.0, tiles / p.sm_count);
  }

  /// The fraction of peak a library operator reaches: its curve at its FLOPs, capped by its
  /// occupancy times what one thread block reaches on its SM (the same for every operator, so
  /// that small kernels of different operators stay priced alike).
  double library_efficiency(const workload& w) const {
    return std::min(profile_.curve(w.op).at(w.flops), profile_.block_efficiency * occupancy(w));
  }

  double seconds(const workload& w) const override {
    const auto& p = profile_;
    if (p.gemm_batch_as_calls && w.kind == workload::engine::library && w.batch > 1 &&
        (w.op == match::op_kind::matmul || w.op == match::op_kind::batch_matmul)) {
      // CBLAS computes the batch as `batch` products one after another, each as small as it is:
      // 28 products of 28 × 256 · 256 × 512 run below the rate of one product of their FLOPs.
      // Never below that rate: a curve measured on a loaded machine dips at large sizes, which
      // would price splitting a product into a batch below the product itself.
      workload one = w, whole = w;
      one.flops = w.flops / static_cast<double>(w.batch);
      one.bytes = w.bytes / static_cast<double>(w.batch);
      one.batch = whole.batch = 1;
      return std::max(static_cast<double>(w.batch) * seconds(one), seconds(whole));
    }
    double compute, memory;
    if (w.kind == workload::engine::library) {
      const bool half = w.sixteen_bit && p.half_flops > 0 && w.op != match::op_kind::elementwise;
      const bool tensor_cores = half || (p.use_tf32 && w.op != match::op_kind::elementwise);
      const double peak = half ? p.half_flops : tensor_cores ? p.tf32_flops : p.fp32_flops;
      double flops = w.flops * (w.winograd_3x3 && !tensor_cores ? p.winograd_3x3_flop_fraction : 1.0);
      compute = flops / (peak * library_efficiency(w));
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
