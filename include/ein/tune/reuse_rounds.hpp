// The rounds of a reuse-based search: the neighbourhood of where it starts, then of wherever the
// best point so far has moved, so that a search can walk further than one choice from its start.
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace ein::tune {

/// ETO's reuse-based search (Algorithm 1: the ranges around the reused configuration) taken in
/// rounds, as a local search climbs: the first round is the neighbourhood of the start; each
/// later one, the neighbourhood of the best point the rounds before found, less the points
/// already tried, while that best has moved (the centre of the last round is still the best: the
/// search stands on a local optimum) and rounds are left. One round only is ETO's search; more
/// reach a point several choices from the start (a source's 8 lanes where 1 is best) at a
/// round's cost each, spent only where a round found something better.
/// Example: neighbourhood(p) = {p - 1, p, p + 1} over integers, start 8, best 5, 3 rounds:
/// round 1 {8, 7, 9}; best 7 → round 2 {6}; best 6 → round 3 {5}; then none.
template <class Schedule>
class reuse_rounds {
 public:
  using neighbourhood_of = std::function<std::vector<Schedule>(const Schedule&)>;

  reuse_rounds(Schedule start, neighbourhood_of neighbourhood, int rounds)
      : centre_(std::move(start)), neighbourhood_(std::move(neighbourhood)), rounds_left_(rounds) {}

  /// The first round's points: the start's neighbourhood (the start first).
  std::vector<Schedule> first() {
    if (rounds_left_ <= 0) return {centre_};
    --rounds_left_;
    return neighbourhood_(centre_);
  }

  /// `fixed` (the space's default point), then the first round's points other than it: what a
  /// search by reuse measures first.
  std::vector<Schedule> first_after(const Schedule& fixed) {
    std::vector<Schedule> r{fixed};
    for (auto& p : first())
      if (p != fixed) r.push_back(p);
    return r;
  }

  /// The next round's points, given the best point found so far and every point `tried` (the
  /// rounds' and any other the search timed): none where `best` is the last centre or the rounds
  /// are spent.
  std::vector<Schedule> next(const Schedule& best, const std::vector<Schedule>& tried) {
    if (rounds_left_ <= 0 || best == centre_) return {};
    --rounds_left_;
    centre_ = best;
    std::vector<Schedule> r;
    for (auto& p : neighbourhood_(centre_))
      if (std::find(tried.begin(), tried.end(), p) == tried.end()) r.push_back(p);
    return r;
  }

 private:
  Schedule centre_;
  neighbourhood_of neighbourhood_;
  int rounds_left_;
};

}  // namespace ein::tune
