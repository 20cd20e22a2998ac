// Search limits, why a search stopped, and what it counted on the way.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ein::search {

/// Limits of one search; whichever is reached first stops it.
struct budget {
  int max_depth = 7;                        // derivation steps from the source (EinNet MaxDepth)
  std::uint64_t max_states = 10'000'000;    // distinct states kept
  std::chrono::milliseconds time{600'000};  // wall clock
};

/// Why a search returned.
enum class stop_reason { exhausted, depth, states, time };
inline const char* name(stop_reason r) {
  constexpr const char* n[] = {"exhausted", "depth", "states", "time"};
  return n[static_cast<int>(r)];
}

/// Counters of one search, reported beside its result.
struct statistics {
  std::uint64_t states = 0;       // distinct states kept, the source included
  std::uint64_t candidates = 0;   // candidates the rules produced
  std::uint64_t pruned = 0;       // candidates already seen at the same or a smaller depth
  int depth = 0;                  // deepest level expanded
  std::vector<std::uint64_t> states_per_depth;  // new states at depth 0, 1, ...
  std::vector<double> seconds_to_depth;  // seconds from the start until depth d was complete
  double seconds = 0;
  stop_reason reason = stop_reason::exhausted;
};

}  // namespace ein::search
