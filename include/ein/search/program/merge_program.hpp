// The program-level merging pass: definitions that contract one shared operand with different
// weights become one contraction (EinNet Figure 3(a)), and contractions of one shape over
// different inputs one batched contraction (Figure 15), wherever the cost model predicts a gain.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/batch_contractions.hpp"
#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/program_rules.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/instantiate.hpp"

namespace ein::search {

namespace detail {

// Predicted program times as a build runs them, each distinct definition (by canonical form)
// instantiated once: candidates share most of their definitions with the program they came from.
// What a value reads and costs is kept by value too (the keys hold the values, so that an
// address is never reused while the timer lives): candidates share the very values, whose
// canonical forms need not be computed again.
struct program_timer {
  const cost::model& model;
  const ein::plan::capabilities& caps;
  std::map<std::string, double> seconds;
  std::map<std::pair<ir::scope_ptr, ir::dtype>, double> by_value = {};
  ir::reads_memo reads = {};

  double operator()(const ir::program& p) {
    auto weight_only = ir::weight_only_definitions(p.tensors, p.definitions, reads);
    double s = 0;
    for (auto& d : p.definitions) {
      if (weight_only.count(d.name)) continue;
      auto known = by_value.find({d.value, d.type});
      if (known == by_value.end()) {
        auto form = ir::canonical_string(*d.value) + " as " + ir::name(d.type);
        auto it = seconds.find(form);
        if (it == seconds.end())
          it = seconds.emplace(form, seconds_as_run(instantiate_stored(d.value, d.type, model), model, caps)).first;
        known = by_value.emplace(std::pair{d.value, d.type}, it->second).first;
      }
      s += known->second;
    }
    return s;
  }
};

// `priced` (the instance each definition of `before` is priced as) for `after`, which the merges
// made of it: a definition they kept (its value and type) keeps its instance; one they made or
// rewrote is priced as itself (priced_instance_of), as the merge's candidates were timed.
inline void priced_after_merges(std::map<std::string, std::optional<match::instance>>& priced,
                                const ir::program& before, const ir::program& after, const cost::model& model,
                                const ein::plan::capabilities& caps) {
  std::map<std::string, std::optional<match::instance>> out;
  for (auto& d : after.definitions) {
    auto* was = before.find_definition(d.name);
    auto it = priced.find(d.name);
    bool kept = was && was->value == d.value && was->type == d.type && it != priced.end();
    out[d.name] = kept ? std::move(it->second) : priced_instance_of(d, model, caps);
  }
  priced = std::move(out);
}

}  // namespace detail

/// Predicted run time of a program as a build with capabilities `caps` runs it: each definition
/// that does not read only weights (those are computed when the code is generated) instantiated
/// on its own (search::instantiate) and priced as the build runs it (seconds_as_run), the times
/// added. The program as written and an optimized one are priced by this one function.
/// Example: a matmul whose weight the build's BLAS refuses in its layout is priced as the
/// eOperator the build runs, not as the library call the model alone would price.
inline double program_seconds(const ir::program& p, const cost::model& model,
                              const ein::plan::capabilities& caps = ein::plan::every_operator()) {
  return detail::program_timer{model, caps, {}}(p);
}

/// Applies shared-operand merging (derive::merge_shared_operand) and contraction batching
/// (derive::batch_contractions) greedily: at each step the candidate of either with the lowest
/// predicted time as a build with capabilities `caps` runs it (program_seconds) is taken if it
/// is strictly cheaper than the program, ties to the first found (merges before batchings); it
/// stops when no candidate gains; `batch` false offers merging only (the program search passes
/// program_search::batch_contractions). Each step taken is appended to `steps` when given. Every step
/// keeps the program's values (each rule candidate is exact), tensors and outputs. `timer`, when
/// given, prices the programs (its memo then serves several calls with one model and
/// capabilities). `priced`, when given, holds the instance each definition of `p` is priced as,
/// and is kept so for the result (detail::priced_after_merges).
/// Example: Conv3x3 as Matmul + OffsetReduce and Conv1x1 as Matmul over one input become one
/// Matmul over the concatenated weights, read by the OffsetReduce and the 1×1 output's slice;
/// GCN's second convolutions (1×k over one branch, k×1 over the other), only added, become one
/// Matmul over both branches' im2col'd inputs with the reduction doubled.
inline ir::program merge_contractions(ir::program p, const cost::model& model,
                                      std::vector<derive::step>* steps = nullptr,
                                      const ein::plan::capabilities& caps = ein::plan::every_operator(),
                                      detail::program_timer* timer = nullptr, bool batch = true,
                                      std::map<std::string, std::optional<match::instance>>* priced = nullptr) {
  detail::program_timer own{model, caps, {}};
  auto& seconds = timer ? *timer : own;
  double now = seconds(p);
  std::optional<ir::program> written;  // `p` as given, once a merge changes it
  for (;;) {
    auto candidates = derive::apply(derive::program_rule_named("merge_shared_operand"), p);
    if (batch)
      for (auto& c : derive::apply(derive::program_rule_named("batch_contractions"), p)) candidates.push_back(std::move(c));
    std::size_t best = candidates.size();
    double best_seconds = now * (1 - 1e-9);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      double s = seconds(candidates[i].result);
      if (s < best_seconds) best = i, best_seconds = s;
    }
    if (best == candidates.size()) {
      if (priced && written) detail::priced_after_merges(*priced, *written, p, model, caps);
      return p;
    }
    if (priced && !written) written = p;
    if (steps) steps->push_back(candidates[best].how);
    p = std::move(candidates[best].result);
    now = best_seconds;
  }
}

}  // namespace ein::search
