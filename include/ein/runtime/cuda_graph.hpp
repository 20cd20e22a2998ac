// A CUDA graph captured from a plan's run on a stream of its own, replayed on any stream.
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <utility>

#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/per_stream.hpp"

namespace ein::runtime {

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
///     cuda_graph g([&](cudaStream_t s) { make_state(s); }, [&](cudaStream_t s) { run(s); });
///     g.replay(stream);
class cuda_graph {
 public:
  /// Makes the stream, runs `prepare(stream)` outside capture (what must not happen under
  /// capture: handles, cudaMalloc, occupancy queries), then captures `record(stream)` (in
  /// cudaStreamCaptureModeThreadLocal: other threads' unsafe calls do not end it) and
  /// instantiates it. Stream-ordered temporaries of `record` become the graph's memory nodes.
  /// An exception from either ends the capture and releases everything.
  template <class Prepare, class Record>
  cuda_graph(Prepare&& prepare, Record&& record) {
    try {
      EIN_CUDA_CHECK(cudaGetDevice(&device_));
      EIN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      EIN_CUDA_CHECK(cudaEventCreateWithFlags(&replayed_, cudaEventDisableTiming));
      std::forward<Prepare>(prepare)(stream_);
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
    } catch (...) {
      release();
      throw;
    }
  }
  cuda_graph(const cuda_graph&) = delete;
  cuda_graph& operator=(const cuda_graph&) = delete;
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
