// A CUDA graph captured from a plan's run on a stream of its own, replayed on any stream, and the
// scratch outputs of the run that warms the plan up before the capture.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "ein/runtime/bindings.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/per_stream.hpp"
#include "ein/runtime/resource_owner.hpp"

namespace ein::runtime {

/// Bindings `b` with the outputs named in `outputs` moved to scratch device memory of their size
/// on stream `s` (stream-ordered, freed in stream order with this object): a run whose results
/// nobody reads, as the one that warms a plan up before its capture. Each scratch output sits at
/// its bound pointer's offset modulo 256, so that library calls that choose by alignment
/// (cuBLASLt, cuDNN) choose as for the bound buffers. An output not bound, or bound to null,
/// stays as it is: the run reports it.
class scratch_outputs : resource_owner {
 public:
  struct output {
    std::string_view name;
    std::size_t bytes = 0;
  };

  scratch_outputs(const bindings& b, std::initializer_list<output> outputs, cudaStream_t s)
      : stream_(s), bound_(std::vector<binding>{}, b.caller()) {
    const release_on_throw undo([this] { release(); });
    std::vector<binding> items = b.items();
    for (binding& item : items) {
      const auto* o =
          std::find_if(outputs.begin(), outputs.end(), [&](const output& x) { return x.name == item.name; });
      if (o == outputs.end() || !item.data) continue;
      void* base = nullptr;
      EIN_CUDA_CHECK(cudaMallocAsync(&base, o->bytes + 2 * alignment, s));
      memory_.push_back(base);
      const std::uintptr_t start = (reinterpret_cast<std::uintptr_t>(base) + alignment - 1) / alignment * alignment;
      item.data = reinterpret_cast<const void*>(start + reinterpret_cast<std::uintptr_t>(item.data) % alignment);
    }
    bound_ = bindings(std::move(items), b.caller());
  }
  ~scratch_outputs() { release(); }

  const bindings& get() const { return bound_; }

 private:
  static constexpr std::uintptr_t alignment = 256;  // the most any library asks of an operand
  void release() noexcept {
    for (void* p : memory_) ignore_status(cudaFreeAsync(p, stream_));
    memory_.clear();
  }

  cudaStream_t stream_;
  bindings bound_;
  std::vector<void*> memory_;
};

/// The work of one run of a prepared cuda plan, captured once into an executable CUDA graph and
/// replayed as one launch. It captures on a stream it owns, so the library state that the run
/// uses there (handles, cuDNN workspaces: runtime::per_stream) is the graph's alone: no ordinary
/// run, on any stream, shares the workspaces whose addresses the graph bakes in. Replays are
/// ordered by CUDA (each launch of one executable graph waits for the previous one, whatever its
/// stream); the destructor waits for the last replay, then releases the stream's state
/// (release_stream_state, whose cublasDestroy waits for the whole device) and the stream.
/// replay() may be called from several threads at once: CUDA does not synchronize an executable
/// graph's launches from several threads, so replays take a lock.
///
///     cuda_graph g([&](cudaStream_t s) { make_state(s); warm_up(s); }, [&](cudaStream_t s) { run(s); });
///     g.replay(stream);
class cuda_graph : resource_owner {
 public:
  /// Makes the stream, runs `prepare(stream)` outside capture and waits for it (what must not
  /// happen under capture: handles, cudaMalloc, occupancy queries; and a generated plan's warm-up
  /// run on scratch outputs, so that what the libraries do on first use — cuBLASLt's heuristic
  /// query, cuDNN's first executions, modules loaded lazily — is done before), then captures
  /// `record(stream)` (in cudaStreamCaptureModeThreadLocal: other threads' unsafe calls do not
  /// end it) and instantiates it. Stream-ordered temporaries of `record` become the graph's
  /// memory nodes. An exception from either ends the capture and releases everything.
  template <class Prepare, class Record>
  cuda_graph(Prepare&& prepare, Record&& record) {
    const release_on_throw undo([this] { release(); });
    EIN_CUDA_CHECK(cudaGetDevice(&device_));
    EIN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    EIN_CUDA_CHECK(cudaEventCreateWithFlags(&replayed_, cudaEventDisableTiming));
    std::forward<Prepare>(prepare)(stream_);
    EIN_CUDA_CHECK(cudaStreamSynchronize(stream_));
    EIN_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      std::forward<Record>(record)(stream_);
    } catch (...) {
      ignore_status(cudaStreamEndCapture(stream_, &graph));
      if (graph) ignore_status(cudaGraphDestroy(graph));
      throw;
    }
    EIN_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
    ignore_status(cudaGraphDestroy(graph));
    EIN_CUDA_CHECK(instantiated);
  }
  ~cuda_graph() { release(); }

  /// Launches the graph on `s`, after the work already there; asynchronous. Under the lock, so
  /// that the event marks the last launch.
  void replay(cudaStream_t s) const {
    std::lock_guard lock(replaying_);
    EIN_CUDA_CHECK(cudaGraphLaunch(exec_, s));
    EIN_CUDA_CHECK(cudaEventRecord(replayed_, s));
  }

  /// The stream it captured on, whose library state it baked in.
  cudaStream_t stream() const { return stream_; }

 private:
  // Waits for the last replay first: the graph's work uses the stream's state until it ends.
  void release() noexcept {
    if (replayed_) ignore_status(cudaEventSynchronize(replayed_));
    if (exec_) ignore_status(cudaGraphExecDestroy(exec_));
    if (replayed_) ignore_status(cudaEventDestroy(replayed_));
    if (stream_) {
      ignore_status(cudaStreamSynchronize(stream_));
      release_stream_state(device_, stream_);
      ignore_status(cudaStreamDestroy(stream_));
    }
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t replayed_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  mutable std::mutex replaying_;
};

}  // namespace ein::runtime
