// The library state of a cuda plan (cuBLAS and cuDNN handles, a convolution's descriptors and
// workspace), one per device, stream and host thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

namespace ein::runtime {

namespace detail {

// What release_stream_state() sees of each per_stream: the tables alive now.
class per_stream_table {
 public:
  virtual std::size_t erase_stream(int device, const void* stream) = 0;

 protected:
  ~per_stream_table() = default;
};

struct per_stream_tables {
  std::mutex mutex;
  std::vector<per_stream_table*> tables;
};

// Made before the first table registers, so it is destroyed after the last one unregisters.
inline per_stream_tables& tables() {
  static per_stream_tables all;
  return all;
}

}  // namespace detail

/// One T per (device, stream, host thread), made by `make` on first use and kept until exit or
/// release_stream_state(). A plan keeps its handles and cuDNN workspaces in these (its prepare()
/// makes those of its own stream and thread ahead of the runs), so that runs at once never
/// share one: runs on two streams would otherwise overwrite each other's workspace while both
/// are in flight, and two threads would set one handle's stream under each other. Thread-safe; a
/// T is used only by the runs of its own thread on its own stream, which that stream orders.
///
/// A generated plan's tables are made on first use and never destroyed (the process's end frees
/// what they hold): their T hold cuBLAS and cuDNN handles, and destroying those at exit would call
/// into libraries whose own static state may already be gone (cuDNN loads its sub-libraries on
/// first use, after the table is made, so their statics are destroyed before it).
///
///     static auto& handles = *new per_stream<cublas_handle>;
///     cublasHandle_t h = handles.get(current_device(), s, [s] { return std::make_unique<cublas_handle>(s); }).get();
template <class T>
class per_stream final : detail::per_stream_table {
 public:
  per_stream() {
    auto& all = detail::tables();
    std::lock_guard lock(all.mutex);
    all.tables.push_back(table());
  }
  per_stream(const per_stream&) = delete;
  per_stream& operator=(const per_stream&) = delete;
  ~per_stream() {
    auto& all = detail::tables();
    std::lock_guard lock(all.mutex);
    all.tables.erase(std::find(all.tables.begin(), all.tables.end(), table()));
  }

  /// The T of `device`, `stream` and the calling thread; `make()` gives a std::unique_ptr<T> the
  /// first time (a T that fails to be made is tried again next time). `make` runs outside the
  /// lock, since it may use other tables (a convolution's state is made on the plan's handle),
  /// whose first use registers them under the lock release_stream_state holds while it takes
  /// this one; no other thread makes the same key.
  template <class Make>
  T& get(int device, const void* stream, Make&& make) {
    const key k{device, stream, std::this_thread::get_id()};
    {
      std::lock_guard lock(mutex_);
      if (auto found = states_.find(k); found != states_.end()) return *found->second;
    }
    std::unique_ptr<T> made = make();
    std::lock_guard lock(mutex_);
    return *states_.emplace(k, std::move(made)).first->second;
  }

  /// How many T have been made.
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return states_.size();
  }

 private:
  detail::per_stream_table* table() { return this; }
  std::size_t erase_stream(int device, const void* stream) override {
    std::lock_guard lock(mutex_);
    return std::erase_if(states_, [&](const auto& entry) {
      return std::get<0>(entry.first) == device && std::get<1>(entry.first) == stream;
    });
  }

  using key = std::tuple<int, const void*, std::thread::id>;
  mutable std::mutex mutex_;
  std::map<key, std::unique_ptr<T>> states_;
};

/// Destroys the T of `device` and `stream`, of every thread, in every per_stream alive (every
/// plan's handles and workspaces for that stream); returns how many. For a stream that no run
/// uses any more and whose work is done (a captured graph's own stream, runtime::cuda_graph):
/// its state would otherwise live until exit, and a later stream at the same address would
/// find it.
inline std::size_t release_stream_state(int device, const void* stream) {
  auto& all = detail::tables();
  std::lock_guard lock(all.mutex);
  std::size_t n = 0;
  for (auto* table : all.tables) n += table->erase_stream(device, stream);
  return n;
}

}  // namespace ein::runtime
