// The program-level optimizer (EinNet Algorithm 1, DESIGN §5): splits a program into
// subprograms at non-linear activations, searches them in parallel, turns each chosen plan into
// definitions, and post-optimizes across the program (eOperator fusion, identity removal).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ein/derive/merge_traversal.hpp"
#include "ein/search/merge_program.hpp"
#include "ein/search/optimize.hpp"
#include "ein/search/pack_weights.hpp"

namespace ein::search {

/// One subprogram of a program: a definition's value, or a summation under a non-linear
/// activation of it, searched (or, without a summation, instantiated as written) on its own.
struct subprogram {
  std::string name;        // the definition it becomes: `d`, or `d_s1`, ... for a summation
  std::string definition;  // the definition of the source program it comes from
  ir::scope_ptr source;
  ir::dtype type = ir::dtype::f32;
  bool searched = false;   // false: no summation to derive; `result` is the plan as written
  optimized result;
  double seconds_as_run = 0;  // result.best's predicted time with the backend's library calls
};

/// The optimized program and how it was found.
struct optimized_program {
  ir::program source;  // the program searched
  /// The same inputs, weights and outputs; subprogram `d` becomes definitions `d_k1`, `d_k2`, ...
  /// for its kernels, the last one keeping the name `d`.
  ir::program program;
  std::vector<subprogram> subprograms;  // in program order
  std::vector<derive::step> post_steps;  // program-level post-optimization, in order
  std::vector<std::string> weight_transforms;  // definitions that read weights only
  std::string model;                    // the cost model's description
  unsigned threads = 1;                 // searches run at once
  double seconds = 0;                   // wall clock

  std::uint64_t states() const { return sum([](const search_statistics& s) { return s.explore.states + s.converge.states; }); }
  std::uint64_t pruned() const { return sum([](const search_statistics& s) { return s.explore.pruned + s.converge.pruned; }); }
  int depth() const {
    int d = 0;
    for (auto& s : subprograms) d = std::max(d, s.result.stats.explore.depth);
    return d;
  }
  std::size_t searched() const {
    return static_cast<std::size_t>(std::count_if(subprograms.begin(), subprograms.end(),
                                                  [](const subprogram& s) { return s.searched; }));
  }
  /// `time` or `states` where some search ran out of budget, else `exhausted`.
  stop_reason reason() const {
    stop_reason r = stop_reason::exhausted;
    for (auto& s : subprograms)
      if (s.result.stats.reason == stop_reason::time || (s.result.stats.reason == stop_reason::states && r != stop_reason::time))
        r = s.result.stats.reason;
    return r;
  }
  /// True when a search ran out of budget (reason() is not `exhausted`): the plan is the best
  /// found within it.
  bool cut() const { return reason() != stop_reason::exhausted; }
  /// One line without timings (the same program gives the same line), e.g.
  /// `2 of 3 subprograms searched: 405 states, 941 pruned, depth 2, stop: exhausted`.
  std::string summary() const {
    return std::to_string(searched()) + " of " + std::to_string(subprograms.size()) +
           " subprograms searched: " + std::to_string(states()) + " states, " +
           std::to_string(pruned()) + " pruned, depth " + std::to_string(depth()) +
           ", stop: " + name(reason());
  }
  /// Each subprogram's statistics and chosen plan, the post-optimization steps, the definitions.
  std::string report() const {
    char head[96];
    std::snprintf(head, sizeof head, " (%.3f s on %u threads)\n", seconds, threads);
    std::string r = "cost model: " + model + "\n" + summary() + head;
    for (auto& s : subprograms) {
      r += "subprogram " + s.name + (s.name == s.definition ? "" : " (of " + s.definition + ")") + ": ";
      if (s.searched)
        r += s.result.stats.str() + "\n  chosen " + s.result.best.shape() + " (" +
             s.result.candidates[s.result.chosen].target + "), " + plan::ms_text(s.seconds_as_run) +
             " ms as the backend runs it; baseline " + s.result.baseline.shape() + " " +
             plan::ms_text(s.result.baseline.seconds) + " ms\n";
      else
        r += "as written (no summation)\n";
      for (auto& line : split_lines(s.result.best.str())) r += "  " + line + "\n";
    }
    for (auto& p : post_steps) r += "post-optimization: " + derive::to_string(p) + "\n";
    for (auto& d : program.definitions)
      r += "  " + d.name + " = " + ir::to_string(*d.value) +
           (std::count(weight_transforms.begin(), weight_transforms.end(), d.name) ? "  [weight transform]" : "") + "\n";
    return r;
  }

 private:
  template <class F>
  std::uint64_t sum(F f) const {
    std::uint64_t n = 0;
    for (auto& s : subprograms) n += f(s.result.stats);
    return n;
  }
  static std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> r;
    std::size_t at = 0;
    for (auto nl = text.find('\n'); nl != std::string::npos; at = nl + 1, nl = text.find('\n', at))
      r.push_back(text.substr(at, nl - at));
    if (at < text.size()) r.push_back(text.substr(at));
    return r;
  }
};

namespace detail {

inline bool has_summation(const ir::scope& s) {
  if (!s.summation.empty()) return true;
  bool found = false;
  derive::for_each_access(s.body, [&](const ir::access& a) {
    if (auto* n = std::get_if<ir::scope_ptr>(&a.source)) found = found || has_summation(**n);
  });
  return found;
}

// Nested scopes with a summation read under a non-linear function of `e` (in read order).
inline void summations_under_activation(const ir::expr& e, bool under, std::vector<ir::scope_ptr>& out) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::access>) {
          if (auto* s = std::get_if<ir::scope_ptr>(&n.source))
            if (under && has_summation(**s) && std::find(out.begin(), out.end(), *s) == out.end())
              out.push_back(*s);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          summations_under_activation(n.arg, under || n.fn != ir::unary_fn::neg, out);
        } else if constexpr (std::is_same_v<T, ir::binary>) {
          summations_under_activation(n.lhs, under, out);
          summations_under_activation(n.rhs, under, out);
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

// A name not in `taken` (then taken): `base`, else `base_2`, `base_3`, ...
inline std::string fresh_definition_name(const std::string& base, std::set<std::string>& taken) {
  std::string n = base;
  for (int k = 2; taken.count(n); ++k) n = base + "_" + std::to_string(k);
  taken.insert(n);
  return n;
}

inline ir::tensor definition_tensor(const std::string& name, const ir::scope& value, ir::dtype type) {
  return {name, type, value.shape(), ir::tensor_role::definition};
}

// `s` with every read of a tensor named in `to` reading the tensor it maps to instead.
inline ir::scope_ptr rename_reads(const ir::scope_ptr& s, const std::map<std::string, ir::tensor>& to) {
  auto body = derive::map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&a.source);
    if (!t) return nullptr;
    auto it = to.find(t->name);
    return it == to.end() ? nullptr : ir::make_access(it->second, a.index);
  });
  return body == s->body ? s : derive::with_body(*s, body);
}

// `s` (a box starting at 0) moved to the box starting at `lower`.
inline ir::scope_ptr moved_to(const ir::scope_ptr& s, const std::vector<std::int64_t>& lower) {
  std::map<std::string, ir::affine> move;
  std::vector<ir::iterator> trav;
  for (std::size_t d = 0; d < s->traversal.size(); ++d) {
    auto& i = s->traversal[d];
    trav.push_back({i.name, i.lo + lower[d], i.hi + lower[d]});
    if (lower[d] != 0) move[i.name] = ir::idx(i.name) - ir::affine(lower[d]);
  }
  if (move.empty()) return s;
  auto body = derive::map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
    std::vector<ir::affine> index;
    for (auto& e : a.index) index.push_back(e.substitute(move));
    return std::visit([&](const auto& src) { return ir::make_access(src, std::move(index)); }, a.source);
  });
  return ir::make_scope(std::move(trav), s->summation, std::move(body), s->reduce);
}

// A definition of the optimized program and what post-optimization needs to know of it.
struct entry {
  ir::definition def;
  bool library = false;  // a library operator other than elementwise computes it
};

inline std::vector<std::string> tensors_read(const ir::scope& s) {
  std::vector<std::string> r;
  derive::for_each_access(s.body, [&](const ir::access& a) {
    if (auto* t = std::get_if<ir::tensor>(&a.source))
      if (std::find(r.begin(), r.end(), t->name) == r.end()) r.push_back(t->name);
  });
  return r;
}

// Definitions that read weights only (directly or through other such definitions), one weight
// at least.
inline std::set<std::string> weight_only(const ir::program& p, const std::vector<entry>& defs) {
  std::set<std::string> weights, only;
  for (auto& t : p.tensors)
    if (t.role == ir::tensor_role::weight) weights.insert(t.name);
  for (auto& e : defs) {
    auto reads = tensors_read(*e.def.value);
    bool any = false, all = true;
    for (auto& n : reads) {
      any = any || weights.count(n) || only.count(n);
      all = all && (weights.count(n) || only.count(n));
    }
    if (any && all) only.insert(e.def.name);
  }
  return only;
}

inline double eoperator_seconds(const ir::scope& s, const cost::model& model) {
  auto f = match::eoperator_cost(s);
  return model.seconds(cost::workload::eoperator(f.flops, f.bytes, &s));
}

// `reader` with every read of definition `a` replaced by a's body (traversal merging), or
// nothing where a read cannot be inlined exactly (a sum under a non-linear function, a read
// outside a's box where its body is not 0).
inline std::optional<ir::scope_ptr> inline_definition(const ir::scope_ptr& reader, const ir::definition& a) {
  auto body = derive::map_accesses(reader->body, [&](const ir::access& x) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&x.source);
    return t && t->name == a.name ? ir::make_access(a.value, x.index) : nullptr;
  });
  auto s = derive::with_body(*reader, body);
  auto nested = [](const ir::scope_ptr& e) {
    bool any = false;
    derive::for_each_access(e->body, [&](const ir::access& x) { any = any || std::holds_alternative<ir::scope_ptr>(x.source); });
    return any;
  };
  while (nested(s)) {
    std::optional<ir::scope_ptr> next;
    for (auto& c : derive::merge_traversal(s))
      if (auto* inlined = c.how.get<derive::path>("inline"); inlined && inlined->size() == 1) {
        next = c.result;
        break;
      }
    if (!next) return std::nullopt;
    s = *next;
  }
  return s;
}

// Removes definitions that copy a tensor unchanged (the identity index over the same box).
inline bool remove_identity(const ir::program& p, std::vector<entry>& defs, std::vector<derive::step>& log) {
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    auto& d = defs[i].def;
    auto* a = std::get_if<ir::access>(d.value->body.get());
    if (!d.value->summation.empty() || !a || !std::holds_alternative<ir::tensor>(a->source)) continue;
    auto t = std::get<ir::tensor>(a->source);
    if (a->index.size() != d.value->traversal.size()) continue;
    bool identity = true;
    for (std::size_t k = 0; k < a->index.size(); ++k)
      identity = identity && a->index[k] == ir::idx(d.value->traversal[k].name);
    if (!identity) continue;
    auto source = std::find_if(defs.begin(), defs.end(), [&](const entry& e) { return e.def.name == t.name; });
    std::vector<std::int64_t> lower(t.shape.size(), 0), shape = t.shape;
    ir::dtype type = t.type;
    if (source != defs.end()) lower = source->def.value->lower(), shape = source->def.value->shape(), type = source->def.type;
    if (lower != d.value->lower() || shape != d.value->shape() || type != d.type) continue;
    if (!outputs.count(d.name)) {
      ir::tensor to = t;
      to.type = type;
      for (auto& e : defs) e.def.value = rename_reads(e.def.value, {{d.name, to}});
      log.push_back({"remove_identity", std::nullopt, {{"definition", d.name}, {"copy of", t.name}}});
      defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    // An output copying a temporary only it reads: the temporary takes the output's name.
    if (source == defs.end() || outputs.count(t.name)) continue;
    std::size_t readers = 0;
    for (auto& e : defs) {
      auto reads = tensors_read(*e.def.value);
      readers += static_cast<std::size_t>(std::count(reads.begin(), reads.end(), t.name));
    }
    if (readers != 1) continue;
    log.push_back({"remove_identity", std::nullopt, {{"definition", d.name}, {"copy of", t.name}, {"source renamed to", d.name}}});
    source->def.name = d.name;
    defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

// Fuses an eOperator definition into the one eOperator that reads it, where that is exact and
// cheaper under `model`; weight transforms are fused only with weight transforms.
inline bool fuse_one(const ir::program& p, std::vector<entry>& defs, const cost::model& model,
                     std::vector<derive::step>& log) {
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end());
  auto only = weight_only(p, defs);
  std::map<std::string, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (auto& n : tensors_read(*defs[i].def.value)) readers[n].push_back(i);
  for (std::size_t b = 0; b < defs.size(); ++b) {
    if (defs[b].library) continue;
    for (auto& name : tensors_read(*defs[b].def.value)) {
      auto a = static_cast<std::size_t>(
          std::find_if(defs.begin(), defs.end(), [&](const entry& e) { return e.def.name == name; }) - defs.begin());
      if (a == defs.size() || defs[a].library || outputs.count(name) || readers[name].size() != 1 ||
          only.count(name) != only.count(defs[b].def.name) || defs[a].def.type != defs[b].def.type)
        continue;
      auto fused = inline_definition(defs[b].def.value, defs[a].def);
      if (!fused) continue;
      double before = eoperator_seconds(*defs[a].def.value, model) + eoperator_seconds(*defs[b].def.value, model);
      if (eoperator_seconds(**fused, model) > before) continue;
      log.push_back({"fuse_expression", std::nullopt, {{"definition", name}, {"into", defs[b].def.name}}});
      defs[b].def.value = *fused;
      defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(a));
      return true;
    }
  }
  return false;
}

// The plan of `s` as written, its only candidate.
inline optimized as_written(const ir::scope_ptr& s, const cost::model& model, const std::string& model_text) {
  optimized r;
  r.baseline = r.best = instantiate(s, model);
  r.candidates.push_back({r.best, "as written", {}});
  r.model = model_text;
  return r;
}

inline bool runs_as_library(const kernel& k, const library_support& runs) {
  return k.library() && k.op->kind != match::op_kind::elementwise && (!runs || runs(k));
}

// The predicted time of `p` where library kernels that the backend does not run as library
// calls run as eOperators.
inline double seconds_as_run(const plan& p, const cost::model& model, const library_support& runs) {
  if (!runs) return p.seconds;
  double t = 0;
  for (auto& k : p.kernels)
    t += k.weight_only || !k.library() || runs(k) ? k.seconds : eoperator_seconds(*k.value, model);
  return t;
}

// True when every kernel of `p` that runs is a library call of the backend or a memory-bound
// eOperator (plan::matched_or_memory_bound, with the library kernels the backend does not call
// counted as the eOperators they become).
inline bool runs_well(const plan& p, const library_support& runs) {
  return std::all_of(p.kernels.begin(), p.kernels.end(), [&](const kernel& k) {
    return k.weight_only || (k.library() && (!runs || runs(k))) || match::memory_bound(match::eoperator_cost(*k.value));
  });
}

// Chooses the candidate of `r` that is cheapest as the backend runs it (ties: fewer kernels at
// run time, then discovery order) among those that run well (runs_well): as in the search,
// EinNet §6.1, a compute-bound eOperator is the choice only where nothing else is left, since
// a generated loop nest is far from the peak a library reaches (the model's fixed eOperator
// fraction of peak flatters it at scale). Each candidate first reads its weight operands packed
// for the backend (pack_weight_operands, compute-bound kernels only, which are what running
// well asks for) where that makes it run well, or cheaper as run.
inline void choose_for_backend(optimized& r, const cost::model& model, const library_support& runs) {
  std::vector<double> t;
  std::vector<bool> good;
  pack_memo orders;  // the candidates share most kernels
  for (auto& c : r.candidates) {
    auto packed = pack_weight_operands(c.p, model, runs, &orders, pack_kernels::compute_bound_refused);
    bool packed_good = runs_well(packed, runs), c_good = runs_well(c.p, runs);
    if ((packed_good && !c_good) ||
        (packed_good == c_good && seconds_as_run(packed, model, runs) < seconds_as_run(c.p, model, runs)))
      c.p = std::move(packed);
    t.push_back(seconds_as_run(c.p, model, runs));
    good.push_back(runs_well(c.p, runs));
  }
  bool any_good = std::find(good.begin(), good.end(), true) != good.end();
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    if (any_good && !good[i]) continue;
    if (!best || t[i] < t[*best] ||
        (t[i] == t[*best] && r.candidates[i].p.run_time_kernels() < r.candidates[*best].p.run_time_kernels()))
      best = i;
  }
  r.chosen = *best;
  r.best = r.candidates[*best].p;
}

// The definitions of subprogram `s` (named `s.name`) from its chosen plan.
inline void add_plan(const subprogram& s, ir::dtype type, const library_support& runs, std::set<std::string>& taken,
                     std::vector<entry>& out) {
  auto& kernels = s.result.best.kernels;
  std::map<std::string, ir::tensor> names;  // k<i> → the kernel's definition tensor
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto& k = kernels[i];
    bool last = i + 1 == kernels.size();
    std::string n = last ? s.name : fresh_definition_name(s.name + "_" + k.name, taken);
    auto value = rename_reads(k.flat, names);
    if (last) value = moved_to(value, s.source->lower());
    names[k.name] = definition_tensor(n, *value, type);
    out.push_back({{n, value, type}, runs_as_library(k, runs)});
  }
}

}  // namespace detail

/// `r` (a result of optimize_program) for a backend that runs the library kernels `runs`
/// accepts: each searched subprogram's plan is chosen again among its candidates, priced as
/// that backend runs them, and the program is rebuilt and post-optimized. One search serves
/// several backends this way.
inline optimized_program for_backend(optimized_program r, const cost::model& model, const library_support& runs) {
  auto start = std::chrono::steady_clock::now();
  std::set<std::string> taken;
  for (auto& t : r.source.tensors) taken.insert(t.name);
  for (auto& d : r.source.definitions) taken.insert(d.name);
  for (auto& s : r.subprograms) {
    taken.insert(s.name);
    if (s.searched) detail::choose_for_backend(s.result, model, runs);
    s.seconds_as_run = detail::seconds_as_run(s.result.best, model, runs);
  }
  std::vector<detail::entry> defs;
  for (auto& s : r.subprograms) detail::add_plan(s, s.type, runs, taken, defs);
  r.post_steps.clear();
  while (detail::remove_identity(r.source, defs, r.post_steps) || detail::fuse_one(r.source, defs, model, r.post_steps)) {
  }
  r.program.definitions.clear();
  for (auto& e : defs) r.program.definitions.push_back(std::move(e.def));
  r.program = merge_shared_operands(std::move(r.program), model, &r.post_steps);
  auto only = derive::weight_only_definitions(r.program);
  r.weight_transforms.clear();
  for (auto& d : r.program.definitions)
    if (only.count(d.name)) r.weight_transforms.push_back(d.name);
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

/// Optimizes a program (EinNet Algorithm 1, DESIGN §5):
///  1. splits it into subprograms: each definition, and apart from it each summation a
///     non-linear function (relu, sigmoid, tanh, exp) is applied to, which becomes a definition
///     `d_s1`, `d_s2`, ... that the activation (a cheap elementwise eOperator) reads;
///  2. searches every subprogram that has a summation with optimize(source, rules, model, opts),
///     on up to search_threads(opts.threads) threads (subprograms are independent; the result
///     does not depend on the number), within what is left of `opts.limits.time` for all of
///     them (a subprogram whose search would start after it is taken as written), and takes the
///     candidate that is cheapest as the backend runs it (`runs`: library kernels it does not
///     call are priced as eOperators), a plan with a compute-bound eOperator only where no
///     other is left; the others are instantiated as written;
///  3. writes each chosen plan as definitions, one per kernel (`d_k1`, `d_k2`, ..., the last
///     named `d`, on d's box);
///  4. post-optimizes across the program: removes identity copies, and fuses an eOperator into
///     the eOperator that alone reads it where traversal merging is exact and the model says it
///     is cheaper (a weight transform only into a weight transform);
///  5. merges definitions that contract one shared operand with different weights into one
///     contraction where the model predicts a gain (merge_shared_operands, EinNet Figure 3(a)).
/// Definitions that read weights only are listed in `weight_transforms`. Deterministic: results
/// are merged in program order, so the same program gives the same result (searches that run
/// out of time excepted). `progress` is called from the searching threads, one call at a time.
inline optimized_program optimize_program(const ir::program& source, std::span<const derive::rule> rules,
                                          const cost::model& model, const options& opts = {},
                                          const progress_fn& progress = {},
                                          const library_support& runs = {}) {
  auto start = std::chrono::steady_clock::now();
  optimized_program out;
  out.source = source;
  out.model = model.describe();
  out.program.name = source.name;
  out.program.tensors = source.tensors;
  out.program.outputs = source.outputs;

  std::set<std::string> taken;
  for (auto& t : source.tensors) taken.insert(t.name);
  for (auto& d : source.definitions) taken.insert(d.name);
  for (auto& d : source.definitions) {
    if (!d.value) throw user_error("program `" + source.name + "`: definition `" + d.name + "` has no value");
    std::vector<ir::scope_ptr> split;
    detail::summations_under_activation(d.value->body, false, split);
    std::map<const ir::scope*, ir::tensor> as_tensor;
    for (auto& s : split) {
      auto n = detail::fresh_definition_name(d.name + "_s" + std::to_string(as_tensor.size() + 1), taken);
      as_tensor[s.get()] = detail::definition_tensor(n, *s, d.type);
      out.subprograms.push_back({n, d.name, s, d.type, false, {}, 0});
    }
    auto body = derive::map_accesses(d.value->body, [&](const ir::access& a) -> ir::expr {
      auto* s = std::get_if<ir::scope_ptr>(&a.source);
      auto it = s ? as_tensor.find(s->get()) : as_tensor.end();
      return it == as_tensor.end() ? nullptr : ir::make_access(it->second, a.index);
    });
    out.subprograms.push_back({d.name, d.name, derive::with_body(*d.value, body), d.type, false, {}, 0});
  }

  std::vector<std::size_t> work;
  for (std::size_t i = 0; i < out.subprograms.size(); ++i) {
    auto& s = out.subprograms[i];
    s.searched = detail::has_summation(*s.source);
    if (s.searched)
      work.push_back(i);
    else
      s.result = detail::as_written(s.source, model, out.model);
  }
  std::mutex report_lock;
  progress_fn serialized;
  if (progress)
    serialized = [&](const statistics& st) {
      std::lock_guard lock(report_lock);
      progress(st);
    };
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(work.size());
  // The time budget bounds the subprograms together: each search gets what is left of it, and
  // one that would start after it is taken as written (its search cut).
  const auto deadline = start + opts.limits.time;
  auto worker = [&] {
    for (std::size_t w = next++; w < work.size(); w = next++) {
      try {
        auto& s = out.subprograms[work[w]];
        auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
          s.result = detail::as_written(s.source, model, out.model);
          s.result.stats.reason = stop_reason::time;
          continue;
        }
        auto within = opts;
        within.limits.time = left;
        s.result = optimize(s.source, rules, model, within, serialized);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    }
  };
  out.threads = static_cast<unsigned>(
      std::clamp<std::size_t>(search_threads(opts.threads), 1, std::max<std::size_t>(work.size(), 1)));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < out.threads; ++t) pool.emplace_back(worker);
    worker();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return for_backend(std::move(out), model, runs);
}

}  // namespace ein::search
