// A minimum-cost arborescence of a directed graph (Chu–Liu/Edmonds), which chooses ETO's reuse
// pairs: every kernel gets one way to be tuned, from scratch or from another kernel's best.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/error.hpp"

namespace ein::tune {

/// A directed arc `from → to` of cost `cost`.
struct arc {
  std::size_t from = 0, to = 0;
  double cost = 0;
};

/// A spanning tree of arcs directed away from the root: one arc entering each node but the root.
struct arborescence {
  /// Marks the root in `entering`.
  static constexpr std::size_t no_arc = std::numeric_limits<std::size_t>::max();
  /// Per node, the index of the arc entering it in the graph's arc list; no_arc for the root.
  std::vector<std::size_t> entering;
  double cost = 0;
};

namespace detail {

// The arcs (indices into `arcs`) entering each node but `root` in a minimum-cost arborescence,
// or nothing when a node has no entering arc. Each node takes its cheapest entering arc
// (the lowest index among equal costs); a cycle of those is contracted into one node, an arc
// entering the cycle at v costing what it costs less the cycle's arc into v (what replacing
// that arc adds), the smaller graph solved, and the cycle opened where the chosen arc enters it.
inline std::optional<std::vector<std::size_t>> chu_liu_edmonds(std::size_t nodes, std::size_t root,
                                                               const std::vector<arc>& arcs) {
  constexpr std::size_t none = arborescence::no_arc;
  std::vector<std::size_t> in(nodes, none);
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    const arc& a = arcs[i];
    if (a.from == a.to || a.to == root) continue;  // never part of an arborescence
    if (in[a.to] == none || a.cost < arcs[in[a.to]].cost) in[a.to] = i;
  }
  for (std::size_t v = 0; v < nodes; ++v)
    if (v != root && in[v] == none) return std::nullopt;
  // Walk back along the cheapest arcs from each node; a walk that meets itself closes a cycle.
  std::vector<std::size_t> cycle(nodes, none), walk(nodes, none);
  std::size_t cycles = 0;
  for (std::size_t v = 0; v < nodes; ++v) {
    std::size_t u = v;
    while (u != root && walk[u] == none) {
      walk[u] = v;
      u = arcs[in[u]].from;
    }
    if (u == root || walk[u] != v) continue;
    for (std::size_t w = u; cycle[w] == none; w = arcs[in[w]].from) cycle[w] = cycles;
    ++cycles;
  }
  if (cycles == 0) return in;
  // Cycle c becomes node c of the contracted graph, every other node one after them.
  std::vector<std::size_t> node(nodes);
  std::size_t contracted_nodes = cycles;
  for (std::size_t v = 0; v < nodes; ++v) node[v] = cycle[v] != none ? cycle[v] : contracted_nodes++;
  std::vector<arc> contracted;
  std::vector<std::size_t> origin;  // the index in `arcs` of each contracted arc
  for (std::size_t i = 0; i < arcs.size(); ++i) {
    const arc& a = arcs[i];
    if (node[a.from] == node[a.to]) continue;
    const double replaced = cycle[a.to] != none ? arcs[in[a.to]].cost : 0;
    contracted.push_back({node[a.from], node[a.to], a.cost - replaced});
    origin.push_back(i);
  }
  auto inner = chu_liu_edmonds(contracted_nodes, node[root], contracted);
  if (!inner) return std::nullopt;
  std::vector<std::size_t> chosen(nodes, none);
  for (std::size_t v = 0; v < nodes; ++v)
    if (cycle[v] != none) chosen[v] = in[v];
  for (std::size_t c = 0; c < contracted_nodes; ++c) {
    if (c == node[root]) continue;
    const std::size_t i = origin[(*inner)[c]];
    chosen[arcs[i].to] = i;  // opens the cycle it enters, if any
  }
  return chosen;
}

}  // namespace detail

/// The arborescence rooted at `root` of least total cost over `arcs` among `nodes` nodes, or
/// nothing when some node cannot be reached from the root. Parallel arcs are allowed; costs may
/// be negative. O(nodes × arcs). Deterministic: among equal costs the lower arc index wins.
/// @pre every arc's ends and `root` are below `nodes`.
/// Example: nodes {0 (root), 1, 2}, arcs 0→1 (10), 0→2 (10), 1→2 (1), 2→1 (1): cost 11,
/// entering {no_arc, 0, 2} (the cycle 1 ⇄ 2 opened by the first root arc).
inline std::optional<arborescence> min_arborescence(std::size_t nodes, std::size_t root, const std::vector<arc>& arcs) {
  if (root >= nodes) throw internal_error("min_arborescence: root " + std::to_string(root) + " of " + std::to_string(nodes) + " nodes");
  for (auto& a : arcs)
    if (a.from >= nodes || a.to >= nodes)
      throw internal_error("min_arborescence: an arc " + std::to_string(a.from) + " → " + std::to_string(a.to) +
                           " outside " + std::to_string(nodes) + " nodes");
  auto entering = detail::chu_liu_edmonds(nodes, root, arcs);
  if (!entering) return std::nullopt;
  arborescence r{std::move(*entering), 0};
  for (std::size_t v = 0; v < nodes; ++v)
    if (v != root) r.cost += arcs[r.entering[v]].cost;
  return r;
}

}  // namespace ein::tune
