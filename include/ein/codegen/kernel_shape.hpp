// An eOperator step as its schedule spaces see it (tune::kernel_shape), from the facts code
// generation computes about its reads.
#pragma once

#include <cstdint>

#include "ein/codegen/kernel_schedule.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/kernel_shape.hpp"

namespace ein::codegen {

/// The extents of step `s`'s loops and what its reads allow: the widest lanes detail::lanes_of
/// finds at 16 or fewer, the staged read's traversal position (detail::tile_of), whether its
/// indices fit `int` (detail::fits_int). `body` stays empty: the tuners, which compare bodies for
/// ETO's reuse, fill it (measure::kernel_body); the emitters need none.
/// Example (float matmul, 64×64×64): traversal {64, 64}, summation {64}, widest_lanes 16.
inline tune::kernel_shape shape_of(const named_kernel& s, const named_plan& plan) {
  const ir::scope& sc = *s.value;
  tune::kernel_shape k;
  for (auto& it : sc.traversal) k.traversal.push_back(it.extent());
  for (auto& it : sc.summation) k.summation.push_back(it.extent());
  // lanes_of tries only the largest dividing count up to `most`; the widest is the first that pays
  for (std::int64_t most = 16; most > 1 && k.widest_lanes == 1; most /= 2)
    k.widest_lanes = detail::lanes_of(s, plan, most).first;
  if (auto tile = detail::tile_of(s, plan)) k.staged_y = tile->y;
  k.int_indices = detail::fits_int(s, plan, make_box(sc));
  return k;
}

/// The schedule of step `s`'s kernel under today's fixed point of its CUDA space
/// (tune::cuda_default of shape_of(s, plan)): what every kernel ran under before tuning.
inline kernel_schedule schedule(const named_kernel& s, const named_plan& plan) {
  return schedule(s, plan, tune::cuda_default(shape_of(s, plan)));
}

}  // namespace ein::codegen
