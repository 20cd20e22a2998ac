// The library state of a cuda plan (cuBLAS and cuDNN handles, a convolution's descriptors and
// workspace), one per device, stream and host thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

namespace ein::runtime {

/// One T per (device, stream, host thread), made by `make` on first use and kept until exit. A
/// plan keeps its handles and cuDNN workspaces in these (its prepare() makes those of its own
/// stream and thread ahead of the runs), so that runs at once never share one:
/// runs on two streams would otherwise overwrite each other's workspace while both are in
/// flight, and two threads would set one handle's stream under each other. Thread-safe; a T is
/// used only by the runs of its own thread on its own stream, which that stream orders.
///
///     static per_stream<cublas_handle> handles;
///     cublasHandle_t h = handles.get(current_device(), s, [s] { return std::make_unique<cublas_handle>(s); }).get();
template <class T>
class per_stream {
 public:
  /// The T of `device`, `stream` and the calling thread; `make()` gives a std::unique_ptr<T> the
  /// first time (under the lock: a T that fails to be made is tried again next time).
  template <class Make>
  T& get(int device, const void* stream, Make&& make) {
    std::lock_guard lock(mutex_);
    auto& slot = states_[{device, stream, std::this_thread::get_id()}];
    if (!slot) slot = make();
    return *slot;
  }

  /// How many T have been made.
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return states_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<int, const void*, std::thread::id>, std::unique_ptr<T>> states_;
};

}  // namespace ein::runtime
