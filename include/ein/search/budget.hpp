// Search limits, why a search stopped, and what it counted on the way.
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "ein/error.hpp"

namespace ein::search {

/// Limits of one search; whichever is reached first stops it.
struct budget {
  int max_depth = 7;                        // derivation steps from the source (EinNet MaxDepth)
  std::uint64_t max_states = 10'000'000;    // distinct states kept
  std::chrono::milliseconds time{600'000};  // wall clock
};

/// The program-level search over each subprogram's plan (choose_subprogram_plans.hpp): relaxation `alpha`
/// (a program priced at most alpha × the best found so far is kept to expand; 1: only programs
/// no dearer than the best), and its budget: `max_expanded` programs expanded, `time` wall clock.
/// The expanded count, not the time, bounds it by default, so that the plan does not depend on
/// the machine's load. `batch_contractions` lets the merging pass batch contractions of one
/// shape over different inputs (derive::batch_contractions, decision 0020); off by default: it
/// multiplies the program search's time by about ten (each pass prices every candidate as a
/// whole program), and where it pays most the roofline prices the folded form as a convolution
/// whose filter covers the stacked input, a price not yet checked on a device.
struct program_search {
  double alpha = 1.05;
  std::uint64_t max_expanded = 4;
  std::chrono::milliseconds time{60'000};
  bool batch_contractions = false;
};

/// The threads a program-level search runs on: `requested` where it is not 0, else the
/// environment variable EIN_THREADS where it is set (a whole number from 1 to 1024), else
/// std::thread::hardware_concurrency() (at least 1). The plan does not depend on it.
/// Throws ein::user_error naming EIN_THREADS when it is set to anything else.
/// Example: `EIN_THREADS=1 cmake --build build` generates every plan on one thread.
inline unsigned search_threads(unsigned requested = 0) {
  if (requested) return requested;
  if (const char* text = std::getenv("EIN_THREADS")) {
    unsigned n = 0;
    auto end = text + std::strlen(text);
    auto r = std::from_chars(text, end, n);
    if (r.ec != std::errc() || r.ptr != end || n < 1 || n > 1024)
      throw user_error(std::string("EIN_THREADS=") + text + ": expected the number of search threads, from 1 to 1024");
    return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Why a search returned.
enum class stop_reason { exhausted, depth, states, time };
inline const char* name(stop_reason r) {
  constexpr const char* n[] = {"exhausted", "depth", "states", "time"};
  return n[static_cast<int>(r)];
}

/// Counters of a program-level search (choose_subprogram_plans.hpp): programs expanded, kept to expand
/// (priced within alpha of the best), pruned (priced above it), under relaxation `alpha`; the
/// predicted time of the program with each subprogram's plan chosen alone (`start_seconds`) and
/// of the one chosen (`best_seconds`).
struct program_statistics {
  std::uint64_t expanded = 0, kept = 0, pruned = 0;
  double alpha = 1;
  double start_seconds = 0, best_seconds = 0;
  double seconds = 0;
  stop_reason reason = stop_reason::exhausted;
};

/// Counters of one search, reported beside its result.
struct statistics {
  std::uint64_t states = 0;       // distinct states kept, the source included
  std::uint64_t candidates = 0;   // candidates the rules produced
  std::uint64_t pruned = 0;       // candidates already seen at the same or a smaller depth
  int depth = 0;                  // deepest level expanded
  std::vector<std::uint64_t> states_per_depth;  // new states at depth 0, 1, ...
  std::vector<std::uint64_t> pruned_per_depth;  // candidates pruned at depth 0, 1, ... (up to the last with any)
  std::vector<double> seconds_to_depth;  // seconds from the start until depth d was complete
  double seconds = 0;
  stop_reason reason = stop_reason::exhausted;
  /// In optimize_program's progress: which of its distinct searches this is (from 1) and how
  /// many it runs; 0 elsewhere.
  std::size_t search = 0, searches = 0;
};

}  // namespace ein::search
