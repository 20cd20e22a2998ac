// The memory a plan's run holds: its temporaries placed in one block by lifetime (each from the
// kernel that first writes it to the last kernel that reads it), so that temporaries that are
// never live at once share bytes, and the peak the run holds with its bound buffers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "ein/match/instance.hpp"
#include "ein/plan/plan.hpp"

namespace ein::plan {

/// Where each temporary of a run lies in the run's block of temporaries.
struct placement {
  std::vector<std::int64_t> offset;  // per buffer: its byte offset in the block, −1 where not in it
  std::int64_t bytes = 0;            // the block's size
};

namespace detail {

inline std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

// The buffers kernel `k` reads: its reads, its library call's operands and epilogue.
inline std::vector<std::size_t> kernel_reads(const kernel& k) {
  std::vector<std::size_t> r = k.reads;
  if (k.call) {
    r.insert(r.end(), k.call->inputs.begin(), k.call->inputs.end());
    if (k.call->epilogue) {
      if (k.call->epilogue->bias) r.push_back(*k.call->epilogue->bias);
      if (k.call->epilogue->residual) r.push_back(*k.call->epilogue->residual);
    }
  }
  return r;
}

}  // namespace detail

/// The block of the temporaries (of `buffers`, a plan's or a layout's) that the kernels `runs`
/// selects (of `kernels`, in order) write, where `in_block` holds for them, each aligned to
/// `alignment` bytes: a temporary lives from the first of those kernels
/// that writes it to the last that reads or writes it, and two whose lifetimes meet (a kernel that
/// reads one and writes the other included) never share a byte. Larger temporaries are placed
/// first, each at the lowest offset free over its lifetime; the same plan gives the same block.
/// A temporary for which `read_at_end` holds lives to the end of the body (prepare() reorders the
/// filters of oneDNN's convolutions after its kernels).
/// Example: a chain a → b → c of three 1 KiB temporaries needs 2 KiB: c reuses a's bytes.
template <class Buffers, class Kernels, class Runs, class InBlock, class ReadAtEnd>
placement place_temporaries(const Buffers& buffers, const Kernels& kernels, Runs&& runs, InBlock&& in_block,
                            ReadAtEnd&& read_at_end, std::int64_t alignment) {
  const std::size_t n = buffers.size();
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> first(n, none), last(n, 0);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    if (!runs(k)) continue;
    auto t = kernels[k].target;
    first[t] = std::min(first[t], k), last[t] = std::max(last[t], k);
    for (auto r : detail::kernel_reads(kernels[k])) last[r] = std::max(last[r], k);
  }
  for (std::size_t id = 0; id < n; ++id)
    if (read_at_end(id)) last[id] = kernels.size();
  std::vector<std::size_t> order;
  for (std::size_t id = 0; id < n; ++id)
    if (first[id] != none && in_block(id)) order.push_back(id);
  auto size = [&](std::size_t id) {
    return detail::round_up(buffers[id].count() * ir::element_bytes(buffers[id].type),
                            alignment);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
  placement out;
  out.offset.assign(n, -1);
  std::vector<std::size_t> placed;
  for (auto id : order) {
    // the placed temporaries live at the same time, by offset
    std::vector<std::pair<std::int64_t, std::int64_t>> taken;
    for (auto o : placed)
      if (first[o] <= last[id] && first[id] <= last[o]) taken.push_back({out.offset[o], out.offset[o] + size(o)});
    std::sort(taken.begin(), taken.end());
    std::int64_t at = 0;
    for (auto [from, to] : taken) {
      if (from >= at + size(id)) break;
      at = std::max(at, to);
    }
    out.offset[id] = at;
    out.bytes = std::max(out.bytes, at + size(id));
    placed.push_back(id);
  }
  return out;
}

/// The bytes of a whole run of plan `p` (its inputs, weights and outputs, as bound, and its block
/// of temporaries), at host alignment: what the run holds at its peak.
inline std::int64_t peak_bytes(const program_plan& p, std::int64_t alignment = 64) {
  std::int64_t bound = 0;
  for (auto& b : p.buffers)
    if (b.role != buffer::kind::temporary)
      bound += b.count() * ir::element_bytes(b.type);
  auto block = place_temporaries(
      p.buffers, p.kernels, [](std::size_t) { return true; },
      [&](std::size_t id) { return p.buffers[id].role == buffer::kind::temporary; },
      [](std::size_t) { return false; }, alignment);
  return bound + block.bytes;
}

}  // namespace ein::plan
