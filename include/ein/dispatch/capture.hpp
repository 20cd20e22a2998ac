// ein::captured: one run of a prepared plan, bound to its buffers once and replayed many times; a
// CUDA graph for a cuda plan.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/runtime/bindings.hpp"
#include "ein/runtime/plan.hpp"

namespace ein {

/// A run of a prepared plan (ein::prepared::capture) with its inputs and outputs bound once:
/// replay() runs it again, reading and writing the buffers bound at capture, as they are then.
/// For a cuda plan it is a CUDA graph captured on a stream it owns (runtime::cuda_graph), so a
/// replay is one launch and shares no library state with ordinary runs; for a host plan, or
/// the generic path, a replay is prepared.run() on the kept bindings: the same results,
/// nothing captured. Movable, not copyable.
/// @pre the prepared plan outlives it and is not moved from while it lives.
template <class Prepared>
class captured {
  static constexpr bool graph = Prepared::captures_graph;

 public:
  /// Captures (cuda: checks the bindings, runs the plan once with its outputs in scratch memory
  /// so that the libraries' first-use work is not captured, and records one run, writing none of
  /// the bound outputs; host: keeps the bindings, checked on each replay). Use prepared.capture(b).
  captured(const Prepared& prepared, const runtime::bindings& b) : prepared_(&prepared) {
    if constexpr (graph) {
      graph_ = prepared.capture_graph(b);
    } else {
      names_.reserve(b.items().size());
      std::vector<runtime::binding> items = b.items();
      for (auto& item : items) item.name = names_.emplace_back(item.name);
      kept_ = runtime::bindings(std::move(items), b.caller());
    }
  }
  captured(const captured&) = delete;
  captured& operator=(const captured&) = delete;
  captured(captured&& other) noexcept
      : prepared_(std::exchange(other.prepared_, nullptr)),
        graph_(std::exchange(other.graph_, nullptr)),
        names_(std::move(other.names_)),
        kept_(std::move(other.kept_)) {}
  captured& operator=(captured&& other) noexcept {
    if (this != &other) {
      release();
      prepared_ = std::exchange(other.prepared_, nullptr);
      graph_ = std::exchange(other.graph_, nullptr);
      names_ = std::move(other.names_);
      kept_ = std::move(other.kept_);
    }
    return *this;
  }
  ~captured() { release(); }

  /// Runs the captured run again on stream `s` (cuda: one graph launch, asynchronous, ordered
  /// after earlier replays of this object whatever their stream).
  void replay(runtime::stream s = nullptr) const {
    if (!prepared_) throw user_error("ein::captured::replay: this captured run was moved from");
    if constexpr (graph)
      Prepared::replay_graph(graph_, s);
    else
      prepared_->run(kept_, s);
  }

 private:
  void release() noexcept {
    if constexpr (graph)
      if (graph_) Prepared::free_graph(graph_);
    graph_ = nullptr;
    prepared_ = nullptr;
  }

  const Prepared* prepared_ = nullptr;  // null once moved from
  void* graph_ = nullptr;               // the graph (cuda)
  std::vector<std::string> names_;      // the bound names (host: the caller's may not live on)
  runtime::bindings kept_{std::vector<runtime::binding>{}, "ein::captured"};
};

}  // namespace ein
