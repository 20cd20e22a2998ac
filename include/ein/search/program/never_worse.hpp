// Never worse, measured: each subprogram whose chosen plan is not the program as written runs both
// on the machine, and keeps the program as written unless its choice is faster there.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/ir/reads.hpp"
#include "ein/search/program/optimized_program.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "ein/search/program/choose_subprogram_plans.hpp"

namespace ein::search {

/// The program that runs one plan of subprogram `i` of `r` alone: `p`'s kernels as the program
/// writes them (plan_definitions), its output the subprogram's definition; what they read that
/// they do not define, an input (a weight where the source program computes it from weights
/// alone, so that a prepared run treats it as a weight transform there).
inline ir::program subprogram_program(const optimized_program& r, std::size_t i, const expression_plan& p) {
  auto& s = r.subprograms.at(i);
  std::vector<ir::definition> sources;
  for (auto& sub : r.subprograms) sources.push_back({sub.name, sub.source, sub.type});
  const auto weight_only = ir::weight_only_definitions(r.source.tensors, sources);
  auto taken = detail::program_names(r);
  ir::program out;
  out.name = r.source.name + "_" + s.name;
  out.definitions = plan_definitions(s, taken, &p);
  std::set<std::string> defined;
  std::map<std::string, ir::tensor> declared;
  for (auto& d : out.definitions) defined.insert(d.name);
  for (auto& d : out.definitions)
    for (auto& t : ir::tensors_read(d.value->body, ir::depth::nested)) {
      if (defined.count(t.name) || declared.count(t.name)) continue;
      ir::tensor in = t;
      in.role = t.role == ir::tensor_role::weight || weight_only.count(t.name) ? ir::tensor_role::weight
                                                                                 : ir::tensor_role::input;
      declared.emplace(t.name, in);
      out.tensors.push_back(std::move(in));
    }
  // A definition of the program that these read by name is one of their tensors now.
  for (auto& d : out.definitions)
    d.value = derive::map_accesses_deep(d.value, [&](const ir::access& a) -> ir::expr {
      auto* t = std::get_if<ir::tensor>(&a.source);
      if (!t) return nullptr;
      auto it = declared.find(t->name);
      return it == declared.end() || it->second == *t ? nullptr : ir::make_access(it->second, a.index);
    });
  out.outputs = {s.name};
  return out;
}

/// Times pairs of programs on the machine: for each (chosen, as written), their times in seconds.
using pair_timer = std::function<std::vector<std::pair<double, double>>(
    const std::vector<std::pair<ir::program, ir::program>>&)>;

/// Makes `r`'s choices never slower than the program as written by measurement: each searched
/// subprogram whose chosen candidate is not the plan as written (candidate 0) runs alone, chosen
/// and as written (subprogram_program, timed by `time`); a choice not faster than the plan as
/// written is replaced by it, and the program is assembled again from the choices (post-
/// optimization and merging under `model`, as for_backend does). Each such subprogram records
/// what was measured (`checked`). Subprograms that share a search are timed once, by the first.
/// @pre for_backend(r, model, caps) has run.
inline void keep_never_worse(optimized_program& r, const cost::model& model, const ein::plan::capabilities& caps,
                             const pair_timer& time) {
  std::vector<std::size_t> checked;
  std::vector<std::pair<ir::program, ir::program>> pairs;
  for (std::size_t i = 0; i < r.subprograms.size(); ++i) {
    auto& s = r.subprograms[i];
    if (!s.searched || s.result.chosen == 0 || (s.shares && r.subprograms[*s.shares].result.chosen == s.result.chosen))
      continue;
    checked.push_back(i);
    pairs.emplace_back(subprogram_program(r, i, s.result.best), subprogram_program(r, i, s.result.baseline));
  }
  if (pairs.empty()) return;
  auto times = time(pairs);
  bool changed = false;
  std::vector<std::size_t> choice;
  for (auto& s : r.subprograms) choice.push_back(s.result.chosen);
  auto apply = [&](std::size_t i, const measured_check& m) {
    r.subprograms[i].checked = m;
    if (m.replaced) choice[i] = 0, changed = true;
  };
  for (std::size_t n = 0; n < checked.size(); ++n) {
    auto [chosen, written] = times.at(n);
    measured_check m{chosen, written, !(chosen < written)};
    apply(checked[n], m);
    // the subprograms that share its search and its choice get its verdict
    for (std::size_t j = checked[n] + 1; j < r.subprograms.size(); ++j)
      if (r.subprograms[j].shares == checked[n] && r.subprograms[j].result.chosen == r.subprograms[checked[n]].result.chosen)
        apply(j, m);
  }
  if (!changed) return;
  detail::program_timer timer{model, caps, {}};
  detail::adopt(r, choice, detail::assemble(r, choice, model, caps, timer, r.relax.batch_contractions), model, caps);
}

}  // namespace ein::search
