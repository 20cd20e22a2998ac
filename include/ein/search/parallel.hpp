// Running independent searches at once: a pool of threads taking work items in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
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

}  // namespace ein::search
