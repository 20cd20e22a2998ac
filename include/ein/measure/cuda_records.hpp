// What the CUDA tuner records of an eOperator, without CUDA: its key and shape, and its record
// in the tuning database, for a build that reads the records where no GPU is.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ein/cost/measured.hpp"
#include "ein/measure/eoperator_kernel.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/database.hpp"

namespace ein::measure {

/// The key and the shape of eOperator `s` as the CUDA tuner and its database see it
/// (cost::flat_eoperator makes it a kernel of its own, as the host tuner's key does).
/// Example: a 64×64×64 float matmul: `eoperator <its canonical form>`, traversal {64, 64}.
inline std::pair<std::string, tune::kernel_shape> identify_cuda_kernel(const ir::scope& s) {
  const eoperator_kernel k(s, cost::eoperator_program, "identify_cuda_kernel");
  return {k.key, k.shape};
}

/// `db`'s record of the kernel `key` of shape `shape` on `device` where its schedule is a point
/// of the kernel's CUDA space.
inline std::optional<tune::tuning_record> recorded_cuda(const tune::device_key& device, const std::string& key,
                                                        const tune::kernel_shape& shape, const tune::tuning_database& db) {
  const auto* r = db.find(device, key);
  if (!r) return std::nullopt;
  const auto* c = std::get_if<tune::cuda_schedule>(&r->best);
  if (!c || !tune::cuda_valid(shape, *c)) return std::nullopt;
  return *r;
}

/// The GPU whose records a cuda plan generated where no GPU is reads: the one device of `db` whose
/// records are CUDA schedules; none where `db` holds no GPU's records, or several GPUs' (which
/// one the plan will run on is not known here).
inline std::optional<tune::device_key> recorded_gpu(const tune::tuning_database& db) {
  std::optional<tune::device_key> found;
  for (auto& d : db.devices()) {
    bool gpu = false;
    for (auto& [key, r] : db.records(d)) gpu = gpu || std::holds_alternative<tune::cuda_schedule>(r.best);
    if (!gpu) continue;
    if (found) return std::nullopt;
    found = d;
  }
  return found;
}

}  // namespace ein::measure
