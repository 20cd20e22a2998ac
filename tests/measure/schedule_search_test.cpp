// measure::schedule_search, the bookkeeping the host and the CUDA tuner share: batches under the
// budget, the schedules timed and refused, the default's and the best point's times, the points a
// search by reuse adds, and which point the record keeps.
#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "ein/measure/schedule_search.hpp"
#include "ein/tune/host_schedule.hpp"

namespace schedule_search_test {

using ein::tune::host_schedule;
using search_of_points = ein::measure::schedule_search<host_schedule>;

// Point n of a stand-in space: the schedule with chunk n (0: the default).
host_schedule point(std::int64_t n) { return {.chunk = n}; }
std::vector<host_schedule> points(std::initializer_list<std::int64_t> ns) {
  std::vector<host_schedule> r;
  for (auto n : ns) r.push_back(point(n));
  return r;
}

TEST_CASE("schedule_search: batches of per_batch candidates, the default counted once, refusals apart") {
  search_of_points search(points({0, 1, 2, 3, 4}), 60, 2);
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  while (search.next_batch()) {
    batches.emplace_back(search.from(), search.to());
    for (std::size_t i = search.from(); i < search.to(); ++i)
      if (search.passes(i, i != 3, "test", "k") && i != 0) search.timed(search.candidates()[i], 1.0 + static_cast<double>(i));
    search.default_timed(search.from() == 0 ? 3.0 : 2.5);
  }
  CHECK(batches == std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {2, 4}, {4, 5}});
  CHECK(search.refused() == 1);
  const auto r = search.record("");
  CHECK(r.trials == 4);  // the default, 1, 2 and 4
  CHECK(r.best == ein::tune::schedule(point(1)));
  CHECK(r.seconds == 2.0);
  CHECK(r.default_seconds == 2.5);  // the least over the batches
}

TEST_CASE("schedule_search: a default that differs from the interpreter is an internal error") {
  search_of_points search(points({0, 1}), 60, 8);
  REQUIRE(search.next_batch());
  CHECK_THROWS_WITH(search.passes(0, false, "test_tuner", "k"),
                    doctest::Contains("test_tuner: the default schedule differs from the interpreter on k"));
}

TEST_CASE("schedule_search: the record keeps the default unless a point beats it by more than the margin") {
  const auto kept = [](double best, double fixed, double margin) {
    search_of_points search(points({0, 1}), 60, 8);
    REQUIRE(search.next_batch());
    search.passes(0, true, "test", "k");
    search.passes(1, true, "test", "k");
    search.default_timed(fixed);
    search.timed(point(1), best);
    return search.record("source", margin);
  };
  CHECK(kept(1.0, 2.0, 0).best == ein::tune::schedule(point(1)));
  CHECK(kept(2.0, 2.0, 0).best == ein::tune::schedule(point(0)));
  CHECK(kept(1.9, 2.0, 0.1).best == ein::tune::schedule(point(0)));
  const auto r = kept(1.0, 2.0, 0.1);
  CHECK(r.best == ein::tune::schedule(point(1)));
  CHECK(r.reused_from == "source");
  CHECK(r.margin == 0.1);
}

TEST_CASE("schedule_search: what `more` adds once every candidate is timed, from the point that leads") {
  std::vector<host_schedule> asked_from;
  search_of_points search(points({0, 1}), 60, 8, [&](const host_schedule& best, const std::vector<host_schedule>& tried) {
    asked_from.push_back(best);
    return tried.size() < 4 ? points({best.chunk + 10}) : points({});
  });
  int batches = 0;
  while (search.next_batch()) {
    ++batches;
    for (std::size_t i = search.from(); i < search.to(); ++i)
      if (search.passes(i, true, "test", "k") && i != 0) search.timed(search.candidates()[i], 1.0 / (1.0 + static_cast<double>(i)));
    search.default_timed(5.0);
    search.end_batch(nullptr, "schedules");
  }
  CHECK(batches == 3);
  CHECK(search.candidates() == points({0, 1, 11, 21}));
  CHECK(asked_from == points({1, 11, 21}));
}

}  // namespace schedule_search_test
