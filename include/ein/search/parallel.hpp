// Running independent work at once: a pool of threads taking work items in order, and work
// computed in parallel but consumed in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <type_traits>
#include <vector>

namespace ein::search {

/// Calls `f(i)` for every i in [0, n) on up to `threads` threads (the caller's among them), each item once; returns the number of threads used. Items are taken in order; what each
/// writes is the caller's to keep apart. The first exception an item throws (in item order) is
/// rethrown once all items ran.
/// Example: `for_each_parallel(work.size(), 4, [&](std::size_t w) { out[w] = search(work[w]); })`.
template <class F>
unsigned for_each_parallel(std::size_t n, unsigned threads, F&& f) {
  threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return threads;
}

/// Calls `consume(i, map(i))` for i = 0, 1, ... n − 1 in that order on the calling thread, until
/// `consume` returns false; returns whether every item was consumed. `map` runs on up to
/// `threads` threads, `block` items at a time, and must not depend on what `consume` does to the
/// items of the same block. With one thread each item is mapped just before it is consumed;
/// otherwise at most `block` results are held at once, and those mapped after the item where
/// `consume` stopped are dropped. Exceptions as in for_each_parallel, the block's first.
/// Example: `map_in_order(n, 4, 256, [&](std::size_t i) { return expand(i); },
///                        [&](std::size_t i, auto r) { return admit(i, std::move(r)); })`.
template <class Map, class Consume>
bool map_in_order(std::size_t n, unsigned threads, std::size_t block, Map&& map, Consume&& consume) {
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i)
      if (!consume(i, map(i))) return false;
    return true;
  }
  std::vector<std::invoke_result_t<Map&, std::size_t>> results(std::min(std::max<std::size_t>(block, 1), n));
  for (std::size_t begin = 0; begin < n; begin += results.size()) {
    std::size_t size = std::min(results.size(), n - begin);
    for_each_parallel(size, threads, [&](std::size_t j) { results[j] = map(begin + j); });
    for (std::size_t j = 0; j < size; ++j)
      if (!consume(begin + j, std::move(results[j]))) return false;
  }
  return true;
}

}  // namespace ein::search
