// Store or recompute (FreeTensor §5.2): for each forward value a gradient program's backward part
// reads, whether the forward keeps it for the backward or the backward computes it again, chosen
// by price under an optional bound on the plan's memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/error.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/grad/keeping.hpp"
#include "ein/grad/recompute.hpp"
#include "ein/ir/reads.hpp"
#include "ein/plan/build.hpp"
#include "ein/plan/memory.hpp"
#include "ein/search/instantiate.hpp"

namespace ein::grad {

namespace detail {

// The predicted time of a definition as written: its cheapest library operator or its eOperator;
// 0 without a model.
inline double price(const ir::scope_ptr& s, const cost::model* model, search::kernel_memo& memo) {
  return model ? search::instantiate(s, *model, &memo).seconds : 0.0;
}

// The backward definitions of `g` that read `name`.
inline std::set<std::string> readers_of(const gradient_program& g, const std::string& name) {
  std::set<std::string> out;
  for (std::size_t k = g.forward_definitions; k < g.program.definitions.size(); ++k) {
    auto reads = ir::tensor_names_read(g.program.definitions[k].value->body, ir::depth::nested);
    if (std::find(reads.begin(), reads.end(), name) != reads.end()) out.insert(g.program.definitions[k].name);
  }
  return out;
}

// What the backward part of `p` spends on the definitions `readers` and on those `g` does not
// have (the copies recomputing a value).
inline double backward_seconds(const gradient_program& p, const gradient_program& g, const std::set<std::string>& readers,
                               const cost::model* model, search::kernel_memo& memo) {
  double total = 0;
  for (std::size_t k = p.forward_definitions; k < p.program.definitions.size(); ++k) {
    const auto& d = p.program.definitions[k];
    if (readers.count(d.name) || !g.program.find_definition(d.name)) total += price(d.value, model, memo);
  }
  return total;
}

inline std::int64_t peak_of(const gradient_program& g, const plan::capabilities& caps) {
  return plan::peak_bytes(plan::make_plan(g.program, caps));
}

}  // namespace detail

/// `g` with the forward values its backward needs stored or recomputed (recompute.hpp), and in
/// `choice` each of them — those the backward reads and, forward of them, those it would read to
/// recompute them — with its price both ways under `model` (the backward's readers of it as they
/// read it, and recomputing it, each alone) and the peak bytes of the plan as written for `caps`
/// (plan/memory.hpp). Forward outputs and weight transforms are always stored (a run holds its
/// outputs; a prepared plan keeps its weight transforms) and are not listed.
/// `keeping::store` recomputes nothing; `keeping::recompute` every value listed (the backward
/// then reads inputs, weights and outputs only); `keeping::cost` recomputes each value the
/// backward reads where that is cheaper (a value fused into readers that read what it reads
/// already), then, under `budget`, values with what they read, those that save the most bytes per
/// second added first, as long as each lowers the peak, until the peak fits.
/// @throws user_error naming the budget and the least peak reached when even recomputing every
///         value leaves the peak above it.
inline gradient_program store_or_recompute(const gradient_program& g, const cost::model* model,
                                           const plan::capabilities& caps, keeping how,
                                           std::optional<std::int64_t> budget, keeping_choice& choice) {
  std::set<std::string> fixed(g.program.outputs.begin(), g.program.outputs.end());
  for (auto& d : ir::weight_only_definitions(g.program.tensors, g.program.definitions)) fixed.insert(d);
  // the values: read by the backward, and forward of them
  std::set<std::string> needed;
  for (auto& n : forward_values_read(g)) needed.insert(n);
  for (std::size_t k = g.forward_definitions; k-- > 0;) {
    const auto& d = g.program.definitions[k];
    if (needed.count(d.name))
      for (auto& n : ir::tensor_names_read(d.value->body, ir::depth::nested)) needed.insert(n);
  }
  search::kernel_memo memo;
  choice = {};
  choice.how = how;
  choice.budget = budget;
  std::map<std::string, std::set<std::string>> reads;  // each value's values read, transitively
  for (std::size_t k = 0; k < g.forward_definitions; ++k) {
    const ir::definition& d = g.program.definitions[k];
    if (!needed.count(d.name) || fixed.count(d.name)) continue;
    kept_value v{d.name};
    v.bytes = ir::element_bytes(d.type);
    for (auto e : d.value->shape()) v.bytes *= e;
    auto readers = detail::readers_of(g, d.name);
    v.store_seconds = detail::backward_seconds(g, g, readers, model, memo);
    v.recompute_seconds = detail::backward_seconds(recompute(g, {d.name}), g, readers, model, memo);
    for (auto& n : ir::tensor_names_read(d.value->body, ir::depth::nested))
      if (reads.count(n)) {
        reads[d.name].insert(n);
        reads[d.name].insert(reads[n].begin(), reads[n].end());
      }
    reads[d.name];
    choice.values.push_back(v);
  }
  auto chosen = [&] {
    std::set<std::string> r;
    for (auto& v : choice.values)
      if (v.recomputed) r.insert(v.definition);
    return r;
  };
  auto finish = [&](const gradient_program& out) {
    auto read = forward_values_read(out);
    for (auto& v : choice.values) v.kept = std::find(read.begin(), read.end(), v.definition) != read.end();
    choice.peak_bytes = detail::peak_of(out, caps);
    return out;
  };
  std::set<std::string> all;
  for (auto& v : choice.values) all.insert(v.definition);
  choice.store_all_peak_bytes = detail::peak_of(g, caps);
  choice.recompute_all_peak_bytes = detail::peak_of(recompute(g, all), caps);
  for (auto& v : choice.values)
    v.recomputed = how == keeping::recompute || (how == keeping::cost && v.recompute_seconds < v.store_seconds);
  gradient_program out = finish(recompute(g, chosen()));
  if (how != keeping::cost || !budget || choice.peak_bytes <= *budget) return out;
  // the stored values, most bytes per second added first
  std::vector<kept_value*> order;
  for (auto& v : choice.values)
    if (!v.recomputed) order.push_back(&v);
  auto per_second = [](const kept_value* v) {
    return static_cast<double>(v->bytes) / std::max(v->recompute_seconds - v->store_seconds, 1e-12);
  };
  std::stable_sort(order.begin(), order.end(), [&](auto* a, auto* b) { return per_second(a) > per_second(b); });
  for (auto* v : order) {
    if (choice.peak_bytes <= *budget) break;
    if (v->recomputed) continue;
    std::vector<kept_value*> switched;
    for (auto& w : choice.values)
      if (!w.recomputed && (&w == v || reads[v->definition].count(w.definition))) switched.push_back(&w), w.recomputed = true;
    auto trial = recompute(g, chosen());
    auto peak = detail::peak_of(trial, caps);
    if (peak < choice.peak_bytes) {
      out = finish(trial);
    } else {
      for (auto* w : switched) w->recomputed = false;
    }
  }
  if (choice.peak_bytes > *budget) {
    for (auto& v : choice.values) v.recomputed = true;
    out = finish(recompute(g, all));
  }
  if (choice.peak_bytes > *budget)
    throw user_error("MEMORY_BUDGET " + std::to_string(*budget) + " bytes: the gradient plan needs " +
                     std::to_string(choice.peak_bytes) + " bytes with every forward value its backward needs recomputed");
  return out;
}

}  // namespace ein::grad
