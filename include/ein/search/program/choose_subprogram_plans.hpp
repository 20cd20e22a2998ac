// The program-level search over each subprogram's plan (EinNet Figure 15): relaxed best-first
// over which candidate every searched subprogram uses, each choice priced as the program the
// build runs after post-optimization and shared-operand merging.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/ir/reads.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/program/merge_program.hpp"
#include "ein/search/program/optimized_program.hpp"
#include "ein/search/program/program_post.hpp"

namespace ein::search {

namespace detail {

// The program that one choice of candidates (an index per subprogram) writes, post-optimized
// and merged, with its steps, each definition's subprogram, the instance each definition is
// priced as (nothing: an eOperator), and its predicted time as run.
struct assembled {
  ir::program program;
  std::vector<derive::step> steps;
  std::map<std::string, std::size_t> origin;
  std::map<std::string, std::optional<match::instance>> priced;
  double seconds = 0;
};

// What the choices of one search share: the definitions each subprogram's candidate writes
// (plan_definitions, named within the program's own names) and what post-optimizing them found
// (post_memo). A choice assembled from them is the one assembled afresh: the same values (the
// same pointers, so that reads, fusions and prices are looked up, not redone), the same steps,
// the same price.
struct assembly_memo {
  std::map<std::pair<std::size_t, std::size_t>, std::vector<entry>> written;  // (subprogram, candidate)
  post_memo post;
};

// The names the program's definitions may not take: its tensors', definitions' and subprograms'.
inline std::set<std::string> program_names(const optimized_program& r) {
  std::set<std::string> taken;
  for (auto& t : r.source.tensors) taken.insert(t.name);
  for (auto& d : r.source.definitions) taken.insert(d.name);
  for (auto& s : r.subprograms) taken.insert(s.name);
  return taken;
}

// The definitions plan `p` of subprogram `i` writes (plan_definitions, fresh names from `taken`),
// each with the instance its kernel was priced as for `caps` (written_instance).
inline std::vector<entry> written_entries(const optimized_program& r, std::size_t i, const expression_plan& p,
                                          std::set<std::string>& taken, const ein::plan::capabilities& caps) {
  auto written = plan_definitions(r.subprograms[i], taken, &p);
  std::map<std::string, ir::tensor> tensors;  // kernel name → its definition's tensor
  std::vector<entry> out;
  for (std::size_t k = 0; k < written.size(); ++k) {
    auto priced = written_instance(p.kernels[k], caps, tensors);
    tensors[p.kernels[k].name] = definition_tensor(written[k].name, *written[k].value, written[k].type);
    out.push_back({std::move(written[k]), std::move(priced), i});
  }
  return out;
}

// The definitions of `choice` before post-optimization, each subprogram's plan written in
// program order, its fresh names taken from `taken` as it grows.
inline std::vector<entry> written_afresh(const optimized_program& r, const std::vector<std::size_t>& choice,
                                         const ein::plan::capabilities& caps) {
  auto taken = program_names(r);
  std::vector<entry> defs;
  for (std::size_t i = 0; i < r.subprograms.size(); ++i)
    for (auto& e : written_entries(r, i, r.subprograms[i].result.candidates.at(choice[i]).p, taken, caps))
      defs.push_back(std::move(e));
  return defs;
}

// The same from `memo`: each candidate's definitions are named once, within the program's names
// alone, which names them as written_afresh does unless two subprograms' fresh names meet (a
// name written_afresh would have moved on); then they are written afresh.
inline std::vector<entry> written_from(assembly_memo& memo, const optimized_program& r,
                                       const std::vector<std::size_t>& choice, const ein::plan::capabilities& caps) {
  std::set<std::string> fresh;
  std::vector<entry> defs;
  for (std::size_t i = 0; i < r.subprograms.size(); ++i) {
    auto [at, made] = memo.written.try_emplace({i, choice[i]});
    if (made) {
      auto taken = program_names(r);
      at->second = written_entries(r, i, r.subprograms[i].result.candidates.at(choice[i]).p, taken, caps);
    }
    for (auto& e : at->second) {
      if (e.def.name != r.subprograms[i].name && !fresh.insert(e.def.name).second) return written_afresh(r, choice, caps);
      defs.push_back(e);
    }
  }
  return defs;
}

// The program `choice` writes, post-optimized, merged and priced; `memo`, when given, holds what
// the choices of one search share (the result is the same without it).
inline assembled assemble(const optimized_program& r, const std::vector<std::size_t>& choice,
                          const cost::model& model, const ein::plan::capabilities& caps, program_timer& timer,
                          bool batch, assembly_memo* memo = nullptr) {
  post_memo own;
  auto& post = memo ? memo->post : own;
  auto defs = memo ? written_from(*memo, r, choice, caps) : written_afresh(r, choice, caps);
  assembled a;
  post_optimize(r.source, defs, model, a.steps, post);
  a.program.name = r.program.name;
  a.program.tensors = r.program.tensors;
  a.program.outputs = r.program.outputs;
  for (auto& e : defs) {
    if (e.origin) a.origin[e.def.name] = *e.origin;
    a.priced[e.def.name] = std::move(e.priced);
    a.program.definitions.push_back(std::move(e.def));
  }
  a.program = merge_contractions(std::move(a.program), model, &a.steps, caps, &timer, batch, &a.priced);
  a.seconds = timer(a.program);
  return a;
}

// The run-time tensors (inputs and definitions, not weights) that two or more subprograms read:
// the operands a merge can share.
inline std::set<std::string> shared_operands(const optimized_program& r) {
  std::set<std::string> weights;
  for (auto& t : r.source.tensors)
    if (t.role == ir::tensor_role::weight) weights.insert(t.name);
  std::map<std::string, std::size_t> readers;
  for (auto& s : r.subprograms) {
    auto reads = ir::tensor_names_read(s.source->body, ir::depth::top_level);
    for (auto& n : std::set<std::string>(reads.begin(), reads.end()))
      if (!weights.count(n)) ++readers[n];
  }
  std::set<std::string> shared;
  for (auto& [n, k] : readers)
    if (k > 1) shared.insert(n);
  return shared;
}

}  // namespace detail

/// The candidates that subprogram `s` may switch to besides its chosen one, cheapest first: at
/// most `limit`, one per kernel shape (plan::shape), the cheapest of it as a build with
/// capabilities `caps` runs it, among those choose_for_backend admits (priced at most the plan as
/// written, running well where any does) that have a run-time library kernel reading one of
/// `shared`. Only those can make a merge possible (a candidate reading no shared operand in a
/// contraction is merged with nothing, and its subprogram alone is dearer than the chosen
/// one); candidates of one shape reading one operand differ in layouts and eOperators, not in
/// what they can merge with, so the cheapest of each shape stands for them.
/// @pre choose_for_backend(s.result, model, caps) has run.
inline std::vector<std::size_t> alternatives(const subprogram& s, const std::set<std::string>& shared,
                                             const cost::model& model, const ein::plan::capabilities& caps,
                                             std::size_t limit = 3) {
  if (!s.searched || shared.empty()) return {};
  auto& c = s.result.candidates;
  auto [t, admitted] = detail::admit(s.result, model, caps);
  auto reads_shared = [&](const expression_plan& p) {
    return std::any_of(p.kernels.begin(), p.kernels.end(), [&](const priced_kernel& k) {
      auto reads = ir::tensor_names_read(k.flat->body, ir::depth::top_level);
      return runs_as_library(k, caps) && !k.weight_only &&
             std::any_of(reads.begin(), reads.end(), [&](const std::string& n) { return shared.count(n) > 0; });
    });
  };
  std::map<std::string, std::size_t> cheapest;  // shape → candidate
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i == s.result.chosen || !admitted[i] || !reads_shared(c[i].p)) continue;
    auto [at, fresh] = cheapest.try_emplace(c[i].p.shape(), i);
    if (!fresh && t[i] < t[at->second]) at->second = i;
  }
  std::vector<std::size_t> r;
  for (auto& [shape, i] : cheapest) r.push_back(i);
  std::sort(r.begin(), r.end(), [&](std::size_t a, std::size_t b) { return std::tie(t[a], a) < std::tie(t[b], b); });
  if (r.size() > limit) r.resize(limit);
  return r;
}

/// The result of choose_subprogram_plans: the candidate each subprogram uses, the program it writes, how
/// the search went.
struct relaxed_choice {
  std::vector<std::size_t> choice;
  detail::assembled best;
  program_statistics stats;
};

/// Searches which candidate each subprogram of `r` uses (EinNet Figure 15: two branches, each
/// cheapest alone in a form that merges with nothing, become cheaper together as one Matmul
/// over their shared input): best-first from the choice in `r` (each subprogram's chosen candidate), a move
/// switching one subprogram to another of its alternatives(), or two subprograms that read one
/// shared operand at once (what a merge joins); a choice is priced as the program
/// it writes after post-optimization and greedy shared-operand merging, as a build with
/// capabilities `caps` runs it (program_seconds). A choice priced at most `opts.alpha` × the best
/// found so far is kept to expand, the cheapest first; the search stops when none is left or
/// after `opts.max_expanded` expansions or `opts.time`, with the best found.
/// @pre choose_for_backend has chosen each searched subprogram's candidate for `caps`.
/// @post `best.seconds` is at most the price of the choice in `r`; `choice[i]` indexes
///       `r.subprograms[i].result.candidates`.
/// Example: conv 7×1 and conv 1×7 over one `[1,56,56,128]` input for a cuda build under the H100
/// profile, each chosen alone as a Matmul whose weight transform blocks the merge (0.0714 ms),
/// become one Matmul over the concatenated filters and two OffsetReduce eOperators (0.0620 ms).
inline relaxed_choice choose_subprogram_plans(const optimized_program& r, const cost::model& model,
                                    const ein::plan::capabilities& caps, const program_search& opts = {}) {
  auto start = std::chrono::steady_clock::now();
  detail::program_timer timer{model, caps, {}};
  detail::assembly_memo memo;  // the choices differ in a subprogram or two
  relaxed_choice out;
  out.stats.alpha = opts.alpha;
  auto shared = detail::shared_operands(r);
  // A move switches one subprogram, or two that read one shared operand at once: a merge joins
  // two subprograms, each of which alone is dearer switched, so that a single switch at a time
  // would reach it only after every cheaper single switch.
  std::vector<std::vector<std::size_t>> options;
  std::vector<std::set<std::string>> reads;
  for (auto& s : r.subprograms) {
    options.push_back(alternatives(s, shared, model, caps));
    out.choice.push_back(s.result.chosen);
    if (!options.back().empty()) options.back().push_back(s.result.chosen);
    reads.emplace_back();
    for (auto& n : ir::tensor_names_read(s.source->body, ir::depth::top_level))
      if (shared.count(n)) reads.back().insert(n);
  }
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> moves;  // (subprogram, candidate) each
  for (std::size_t i = 0; i < options.size(); ++i) {
    for (auto a : options[i]) moves.push_back({{i, a}});
    for (std::size_t j = i + 1; j < options.size(); ++j) {
      bool together = std::any_of(reads[i].begin(), reads[i].end(), [&](const std::string& n) { return reads[j].count(n) > 0; });
      if (together)
        for (auto a : options[i])
          for (auto b : options[j]) moves.push_back({{i, a}, {j, b}});
    }
  }
  out.best = detail::assemble(r, out.choice, model, caps, timer, opts.batch_contractions, &memo);
  out.stats.start_seconds = out.best.seconds;
  // Cheapest first, then in the order found (deterministic).
  using entry = std::tuple<double, std::size_t, std::vector<std::size_t>>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> open;
  std::set<std::vector<std::size_t>> seen{out.choice};
  std::size_t order = 0;
  open.emplace(out.best.seconds, order++, out.choice);
  auto out_of_time = [&] { return std::chrono::steady_clock::now() - start >= opts.time; };
  while (!open.empty() && out.stats.reason == stop_reason::exhausted) {
    if (out.stats.expanded >= opts.max_expanded) {
      out.stats.reason = stop_reason::states;
      break;
    }
    auto [seconds, at, choice] = open.top();
    open.pop();
    if (seconds > opts.alpha * out.best.seconds) continue;  // the best improved since it was kept
    ++out.stats.expanded;
    for (auto& m : moves) {
      if (out_of_time()) {
        out.stats.reason = stop_reason::time;
        break;
      }
      auto next = choice;
      for (auto [i, c] : m) next[i] = c;
      if (!seen.insert(next).second) continue;
      auto a = detail::assemble(r, next, model, caps, timer, opts.batch_contractions, &memo);
      if (a.seconds > opts.alpha * out.best.seconds) {
        ++out.stats.pruned;
        continue;
      }
      ++out.stats.kept;
      open.emplace(a.seconds, order++, next);
      if (a.seconds < out.best.seconds * (1 - 1e-9)) out.best = std::move(a), out.choice = next;
    }
  }
  out.stats.best_seconds = out.best.seconds;
  out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace ein::search
