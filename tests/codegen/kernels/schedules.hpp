// Random points of the host and CUDA schedule spaces of each step of the kernel test cases, drawn
// alike by the generator (which writes each step's host loops and kernels under them) and by the
// test (which checks what each point asks for is in what was written).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ein/codegen/kernel_shape.hpp"
#include "ein/eval/random.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/host_schedule.hpp"

namespace ein_test {

/// How many points of its space each step runs under, besides its default.
inline constexpr int schedule_variants = 2;

/// `schedule_variants` points of step `s`'s host space other than its default (the default
/// where the space holds nothing else), drawn from `seed`: the first without a blocking, the
/// second with one, where the space has such points (blocked points outnumber the others).
inline std::vector<ein::tune::host_schedule> drawn_schedules(const ein::codegen::named_kernel& s, const ein::codegen::named_plan& plan,
                                                             std::uint64_t seed) {
  const auto shape = ein::codegen::shape_of(s, plan);
  const auto fixed = ein::tune::host_default(shape);
  std::vector<ein::tune::host_schedule> others[2];  // unblocked, blocked
  for (auto& p : ein::tune::host_space(shape))
    if (p != fixed) others[p.block_rows != 0].push_back(p);
  ein::eval::random_stream rng(seed);
  std::vector<ein::tune::host_schedule> drawn;
  for (int v = 0; v < schedule_variants; ++v) {
    auto& from = others[v % 2].empty() ? others[1 - v % 2] : others[v % 2];
    drawn.push_back(from.empty() ? fixed : from[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(from.size()) - 1))]);
  }
  return drawn;
}

/// `schedule_variants` points of step `s`'s CUDA space other than its default (the default
/// where the space holds nothing else), drawn from `seed`: the first a flat kernel, the second a
/// tiled one, where the space has such points.
inline std::vector<ein::tune::cuda_schedule> drawn_cuda_schedules(const ein::codegen::named_kernel& s,
                                                                  const ein::codegen::named_plan& plan, std::uint64_t seed) {
  const auto shape = ein::codegen::shape_of(s, plan);
  const auto fixed = ein::tune::cuda_default(shape);
  std::vector<ein::tune::cuda_schedule> others[2];  // flat, tiled
  for (auto& p : ein::tune::cuda_space(shape))
    if (p != fixed) others[p.tile_rows != 0].push_back(p);
  ein::eval::random_stream rng(seed);
  std::vector<ein::tune::cuda_schedule> drawn;
  for (int v = 0; v < schedule_variants; ++v) {
    auto& from = others[v % 2].empty() ? others[1 - v % 2] : others[v % 2];
    drawn.push_back(from.empty() ? fixed : from[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(from.size()) - 1))]);
  }
  return drawn;
}

/// The seed of step `step` of case `k`.
inline std::uint64_t schedule_seed(std::size_t k, std::size_t step) { return 1000 * (k + 1) + step; }

}  // namespace ein_test
