// The JSON report written beside a generated header: the plan, how it was chosen (its derivation
// as data), statistics.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "ein/codegen/backend.hpp"
#include "ein/codegen/emission.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/options.hpp"
#include "ein/codegen/preparation.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/ir/json.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/json.hpp"
#include "ein/plan/memory.hpp"
#include "ein/plan/plan.hpp"
#include "ein/tune/schedule_json.hpp"

namespace ein::codegen {

/// What a gradient plan is the gradient of, and what it keeps of its forward for its backward:
/// each value, recomputed or stored, its price either way and its bytes, the budget, and the peak
/// bytes of the program as written as chosen, storing everything and recomputing everything.
inline nlohmann::ordered_json gradient_report(const options& o) {
  nlohmann::ordered_json g = {{"of", o.gradient}};
  if (!o.keeping) return g;
  const auto& k = *o.keeping;
  g["keeping"] = grad::name(k.how);
  g["memory_budget"] = k.budget ? nlohmann::ordered_json(*k.budget) : nullptr;
  auto& values = g["values"] = nlohmann::ordered_json::array();
  for (auto& v : k.values)
    values.push_back({{"definition", v.definition}, {"recomputed", v.recomputed}, {"kept", v.kept},
                      {"store_seconds", v.store_seconds}, {"recompute_seconds", v.recompute_seconds},
                      {"bytes", v.bytes}});
  g["peak_bytes_as_written"] = k.peak_bytes;
  g["store_all_peak_bytes"] = k.store_all_peak_bytes;
  g["recompute_all_peak_bytes"] = k.recompute_all_peak_bytes;
  return g;
}

/// How a tuned eOperator step's schedule was found (options::tuning): `how` (`from scratch`, `by
/// reuse`, `from the database`, `default`), the kernel reused (else null), the schedule (null: the
/// default), the record's times of it and of the default (null without a record), and whether a
/// record was left for being no point of the step's own space.
inline nlohmann::ordered_json tuning_report(const step_tuning& t) {
  auto seconds = [&](double s) { return t.schedule ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr); };
  return {{"how", name(t.how)},
          {"reused_from", t.how == step_tuning::source::reuse ? nlohmann::ordered_json(t.reused_from) : nullptr},
          {"schedule", t.schedule ? nlohmann::ordered_json(tune::schedule_json(*t.schedule)) : nullptr},
          {"seconds", seconds(t.seconds)},
          {"default_seconds", seconds(t.default_seconds)},
          {"record_unfit", t.unfit}};
}

/// The report of plan `p`: one entry per step (kind, "eoperator" or "library", with the library
/// operator in words; the expression it computes as text and as IR JSON, its box, what it reads,
/// whether it is an output; its library `call` as data, plan/json.hpp, and its `origin`, the
/// subprogram whose derivation wrote it), the search that chose it and its statistics, the
/// build the calls are bound for (`capabilities`), each subprogram's `derivation` (target and
/// steps as data) and the program-level `program_steps`. Search statistics are null while the
/// plan is the program as written (`cut` is true where the search ran out of budget and returned
/// the best plan found within it); weight transforms are marked (`weight_transform`), and so are
/// the steps `ein::prepare` runs once (`in_prepare`), with the size of its storage
/// (`prepared_bytes`); `peak_bytes` is what a run holds at its peak, bound buffers and its block
/// of temporaries (plan/memory.hpp); a gradient plan's `gradient` is gradient_report's. A tuned
/// plan's steps (options::tuning) say how each eOperator's schedule was found (`tuning`,
/// tuning_report; null for a library call); an untuned plan's have no `tuning`.
/// `e` is make_emission(p, o).
inline nlohmann::ordered_json report(const emission& e, const options& o) {
  const ein::plan::program_plan& p = e.plan;
  const named_plan& plan = e.steps;
  auto calls = emitted_calls(plan, o.target);
  const preparation& prepared = e.prep;
  nlohmann::ordered_json r;
  r["name"] = o.name;
  r["object"] = o.object;
  if (o.onnx.empty())
    r["model"] = o.model_header;
  else
    r["onnx"] = o.onnx;
  if (!o.gradient.empty()) r["gradient"] = gradient_report(o);
  r["program_key"] = ir::program_key_text(o.key);
  r["backend"] = name(o.target);
  r["search"] = o.search;
  if (auto& st = p.statistics)
    r["statistics"] = {{"states_visited", st->states_visited}, {"pruned_by_fingerprint", st->pruned_by_fingerprint},
                       {"max_depth", st->max_depth}, {"time_s", st->time_s}, {"stop_reason", st->stop_reason},
                       {"cut", st->cut}, {"cost_model", st->cost_model}, {"report", st->report}};
  else
    r["statistics"] = {{"states_visited", nullptr}, {"pruned_by_fingerprint", nullptr},
                       {"max_depth", nullptr}, {"time_s", nullptr}, {"stop_reason", nullptr}, {"cut", nullptr}};
  auto& tensors = r["tensors"] = nlohmann::ordered_json::array();
  for (auto& b : plan.buffers)
    if (b.role == buffer::kind::input)
      tensors.push_back({{"name", b.name}, {"role", b.weight ? "weight" : "input"}, {"dtype", ir::name(b.type)},
                         {"shape", b.shape}});
  auto& steps = r["plan"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& s = plan.steps[k];
    const buffer& b = plan.buffers[s.target];
    nlohmann::ordered_json reads = nlohmann::ordered_json::array();
    for (auto id : s.reads) reads.push_back(plan.buffers[id].name);
    nlohmann::ordered_json origin = nullptr;
    if (s.origin) origin = p.derivations.at(*s.origin).subprogram;
    steps.push_back({{"definition", b.name},
                     {"dtype", ir::name(b.type)},
                     {"kind", calls[k] ? "library" : "eoperator"},
                     {"library", calls[k] ? nlohmann::ordered_json(calls[k]->op.str()) : nullptr},
                     {"output", b.role == buffer::kind::output},
                     {"weight_transform", s.weight_only},
                     {"in_prepare", static_cast<bool>(prepared.in_prepare[k])},
                     {"expression", ir::to_string(*s.value)},
                     {"lower", b.lower},
                     {"shape", b.shape},
                     {"reads", reads},
                     {"function", s.function},
                     {"ir", nlohmann::ordered_json(ir::to_json(*s.value))},
                     {"call", calls[k] ? nlohmann::ordered_json(ein::plan::to_json(*calls[k], p)) : nullptr},
                     {"origin", origin}});
    if (!o.tuning.empty()) {
      const auto* t = k < o.tuning.size() && o.tuning[k] ? &*o.tuning[k] : nullptr;
      steps.back()["tuning"] = t ? tuning_report(*t) : nlohmann::ordered_json(nullptr);
    }
  }
  r["outputs"] = p.outputs;
  r["prepared_bytes"] = prepared.bytes;
  r["peak_bytes"] = ein::plan::peak_bytes(p);
  r["capabilities"] = p.bound_for.str();
  auto& derivations = r["derivation"] = nlohmann::ordered_json::array();
  for (auto& d : p.derivations) derivations.push_back(nlohmann::ordered_json(ein::plan::to_json(d)));
  auto& program_steps = r["program_steps"] = nlohmann::ordered_json::array();
  for (auto& s : p.program_steps) program_steps.push_back(nlohmann::ordered_json(ein::plan::to_json(s)));
  return r;
}

/// report of the emission of `p` under `o`.
inline nlohmann::ordered_json report(const ein::plan::program_plan& p, const options& o) {
  return report(make_emission(p, o), o);
}

}  // namespace ein::codegen
