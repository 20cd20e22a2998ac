// How a prepared plan splits its steps (ein::prepare): the weight transforms run once, and the
// storage that keeps what the other steps read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ein/codegen/named_plan.hpp"

namespace ein::codegen {

/// How a prepared plan splits `layout`'s steps: prepare() runs the weight transforms once and
/// keeps, in one storage block, every weight or transformed weight that the other steps read;
/// run_prepared() runs the other steps, reading the storage instead of bound weights. A oneDNN
/// convolution whose filter prepare() has gets a state slot instead: prepare() reorders the
/// filter once into the layout oneDNN chose (ein::runtime::onednn_prepared_convolution, owned by
/// the slot), and the filter itself is kept only where another step reads it.
struct preparation {
  /// Buffers are aligned to this many bytes in the storage (cudaMalloc's alignment).
  static constexpr std::int64_t alignment = 256;
  /// Bytes of a state slot: one owning pointer.
  static constexpr std::int64_t slot_bytes = sizeof(void*);

  std::vector<bool> in_prepare;     // per step: run by prepare()
  std::vector<std::size_t> stored;  // buffers kept in the storage, in buffer order
  std::vector<std::int64_t> offset;  // byte offset of each stored buffer
  std::vector<std::int64_t> state;   // per step: byte offset of its state slot, or -1
  std::int64_t bytes = 0;            // the storage's size

  /// The position of buffer `id` in `stored`, or stored.size() when it is not kept.
  std::size_t slot(std::size_t id) const {
    return static_cast<std::size_t>(std::find(stored.begin(), stored.end(), id) - stored.begin());
  }
  bool keeps(std::size_t id) const { return slot(id) < stored.size(); }
  bool has_states() const {
    return std::any_of(state.begin(), state.end(), [](std::int64_t o) { return o >= 0; });
  }
};

/// The preparation of `plan`: a weight transform runs in prepare() when it writes a temporary
/// and reads only weights and transforms that prepare() runs; a weight-only step that writes
/// an output runs in every run_prepared() (from the storage), since outputs are bound there.
/// The storage keeps the buffers of prepare() (weights included) that run_prepared() reads,
/// so a prepared plan never reads the buffers bound to prepare() again.
inline preparation make_preparation(const named_plan& plan) {
  preparation r;
  std::vector<bool> ready(plan.buffers.size(), false);  // known once prepare() ran
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) ready[id] = plan.buffers[id].weight;
  for (auto& s : plan.steps) {
    bool prepared = s.weight_only && plan.buffers[s.target].role == buffer::kind::temporary &&
                    std::all_of(s.reads.begin(), s.reads.end(), [&](std::size_t id) { return ready[id]; });
    r.in_prepare.push_back(prepared);
    if (prepared) ready[s.target] = true;
  }
  auto aligned = [](std::int64_t b) {
    return (b + preparation::alignment - 1) / preparation::alignment * preparation::alignment;
  };
  std::vector<bool> read_later(plan.buffers.size(), false), stateful(plan.steps.size(), false);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    if (r.in_prepare[k]) continue;
    auto& call = plan.steps[k].call;
    stateful[k] = call && call->library == ein::plan::onednn && ready[call->filter()];
    // a oneDNN state holds its filter: the step reads its source and its epilogue's terms only
    for (auto id : plan.steps[k].reads)
      if (!stateful[k] || id != call->filter() || id == call->inputs[0]) read_later[id] = true;
  }
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    if (!ready[id] || !read_later[id]) continue;
    r.bytes = aligned(r.bytes);
    r.stored.push_back(id);
    r.offset.push_back(r.bytes);
    r.bytes += plan.buffers[id].count() * element_bytes(plan.buffers[id].type);
  }
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    r.state.push_back(stateful[k] ? aligned(r.bytes) : -1);
    if (stateful[k]) r.bytes = r.state.back() + preparation::slot_bytes;
  }
  return r;
}

}  // namespace ein::codegen
