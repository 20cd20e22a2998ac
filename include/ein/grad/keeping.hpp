// What a gradient program keeps of its forward for its backward: the choice of
// store_or_recompute.hpp as data, for reports (codegen includes it without the search).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ein::grad {

/// How the forward values the backward reads are chosen: by price (`cost`, under the budget if
/// any), all kept (`store`) or all computed again (`recompute`), the last two to compare with.
enum class keeping : std::uint8_t { cost, store, recompute };
inline const char* name(keeping k) {
  constexpr const char* s[] = {"cost", "store", "recompute"};
  return s[static_cast<int>(k)];
}

/// A forward value the backward needs, directly or to recompute one it reads, and what keeping
/// it costs either way.
struct kept_value {
  std::string definition;
  bool recomputed = false;   // computed again by the backward (fused into its readers, or copied)
  bool kept = false;         // the forward's buffer read by the backward: it lives until then
  double store_seconds = 0;  // the backward's readers of it, reading it as the forward wrote it
  double recompute_seconds = 0;  // the same readers recomputing it from what it reads, and its copy
  std::int64_t bytes = 0;
};

/// The choice for a gradient program, and the memory of its plan as written either way.
struct keeping_choice {
  keeping how = keeping::cost;
  std::optional<std::int64_t> budget;
  std::vector<kept_value> values;
  std::int64_t peak_bytes = 0;            // the chosen program's plan as written (plan/memory.hpp)
  std::int64_t store_all_peak_bytes = 0;  // every value stored
  std::int64_t recompute_all_peak_bytes = 0;
};

}  // namespace ein::grad
