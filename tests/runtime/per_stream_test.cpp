// runtime::per_stream, what a cuda plan keeps its handles and cuDNN workspaces in: one state per
// device, stream and thread, made once, from many threads at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ein/runtime/per_stream.hpp"

namespace per_stream_test {

namespace {

// A stand-in for a handle: which make() call made it.
struct state {
  int serial;
};

}  // namespace

TEST_CASE("per_stream: one state per device and stream on a thread, made on first use only") {
  ein::runtime::per_stream<state> states;
  int made = 0;
  auto make = [&] { return std::make_unique<state>(state{made++}); };
  int a = 0, b = 0;
  state& first = states.get(0, &a, make);
  CHECK(&states.get(0, &a, make) == &first);
  CHECK(made == 1);
  CHECK(&states.get(0, &b, make) != &first);   // another stream
  CHECK(&states.get(1, &a, make) != &first);   // the same stream value on another device
  CHECK(&states.get(0, nullptr, make) != &first);  // the default stream
  CHECK(made == 4);
  CHECK(states.size() == 4);
}

TEST_CASE("per_stream: a make() that throws leaves nothing behind, and the next use makes it") {
  ein::runtime::per_stream<state> states;
  CHECK_THROWS(states.get(0, nullptr, []() -> std::unique_ptr<state> { throw std::runtime_error("no device"); }));
  CHECK(states.get(0, nullptr, [] { return std::make_unique<state>(state{7}); }).serial == 7);
}

TEST_CASE("per_stream: 8 threads on 4 streams at once each get their own state, the same on every call") {
  ein::runtime::per_stream<state> states;
  std::atomic<int> made{0};
  int streams[4] = {};
  constexpr int threads = 8, calls = 200;
  std::vector<std::vector<const state*>> seen(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int k = 0; k < calls; ++k)
        seen[t].push_back(&states.get(0, &streams[k % 4], [&] { return std::make_unique<state>(state{made++}); }));
    });
  for (auto& th : pool) th.join();
  CHECK(made == threads * 4);
  CHECK(states.size() == threads * 4);
  std::vector<const state*> all;
  for (int t = 0; t < threads; ++t)
    for (int k = 0; k < calls; ++k) {
      CHECK(seen[t][k] == seen[t][k % 4]);  // a thread's stream keeps its state
      if (k < 4) all.push_back(seen[t][k]);
    }
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // no two threads or streams share one
}

TEST_CASE("release_stream_state: a stream's states go from every table and thread, the others stay") {
  ein::runtime::per_stream<state> handles, workspaces;
  int made = 0;
  auto make = [&] { return std::make_unique<state>(state{made++}); };
  int released = 0, kept = 0;
  state* other_device = &handles.get(1, &released, make);
  state* other_stream = &handles.get(0, &kept, make);
  workspaces.get(0, &released, make);
  std::thread([&] { handles.get(0, &released, make); }).join();  // another thread's state of it
  handles.get(0, &released, make);
  CHECK(handles.size() == 4);
  {
    ein::runtime::per_stream<state> gone;  // a table destroyed before the release is not visited
    gone.get(0, &released, make);
  }
  CHECK(ein::runtime::release_stream_state(0, &released) == 3);
  CHECK(handles.size() == 2);
  CHECK(workspaces.size() == 0);
  CHECK(&handles.get(1, &released, make) == other_device);
  CHECK(&handles.get(0, &kept, make) == other_stream);
  const int before = made;
  handles.get(0, &released, make);  // made anew
  CHECK(made == before + 1);
  CHECK(ein::runtime::release_stream_state(0, &kept) == 1);
  CHECK(ein::runtime::release_stream_state(0, &kept) == 0);
}

TEST_CASE("release_stream_state while other threads make states and tables come and go") {
  ein::runtime::per_stream<state> states;
  int streams[4] = {}, released = 0;
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      int serial = 0;
      auto mine = [&] { states.get(0, &streams[t], [&] { return std::make_unique<state>(state{serial++}); }); };
      mine();
      ++started;
      while (!stop) {
        mine();
        ein::runtime::per_stream<state> brief;  // registers and unregisters
        brief.get(0, &released, [] { return std::make_unique<state>(state{0}); });
      }
    });
  // every thread has its state before the releases start (a slow thread start, as under a
  // sanitizer, would otherwise leave a thread with none when the releases end)
  while (started < 4) std::this_thread::yield();
  for (int k = 0; k < 500; ++k) ein::runtime::release_stream_state(0, &released);
  stop = true;
  for (auto& th : pool) th.join();
  CHECK(states.size() == 4);  // the others' states stay, one per thread and stream
}

TEST_CASE("a make() that uses another table, while another thread releases states: no deadlock") {
  // A convolution's state is made on the plan's cuDNN handle, whose table may be made (and so
  // registered) inside that make(); release_stream_state holds the registry while it takes each
  // table. make() running under its table's lock would deadlock with it.
  ein::runtime::per_stream<state> states;
  int mine = 0, other = 0;
  std::atomic<bool> done{false};
  std::thread maker([&] {
    for (int k = 0; k < 2000; ++k) {
      states.get(0, &mine, [] {
        std::this_thread::yield();               // a make() takes its time (cuDNN's heuristics)
        ein::runtime::per_stream<state> handle;  // first use of another table: it registers
        return std::make_unique<state>(state{handle.get(0, nullptr, [] { return std::make_unique<state>(); }).serial});
      });
      ein::runtime::release_stream_state(0, &mine);  // so that the next get makes again
    }
    done = true;
  });
  std::thread releaser([&] {
    while (!done) ein::runtime::release_stream_state(0, &other);
  });
  for (int waited = 0; !done && waited < 600; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!done) {
    std::fprintf(stderr, "per_stream: make() and release_stream_state deadlocked\n");
    std::_Exit(1);  // the two threads wait for each other for good: nothing to join
  }
  maker.join();
  releaser.join();
  CHECK(states.size() == 0);
}

}  // namespace per_stream_test
