// The program-level optimizer (EinNet Algorithm 1): searches a program's subprograms,
// chooses each one's plan for a build, post-optimizes across the program, and gives the plan.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ein/derive/merge_shared_operand.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"
#include "ein/plan/build.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/program/identical.hpp"
#include "ein/search/program/join_addition.hpp"
#include "ein/search/program/join_linear.hpp"
#include "ein/search/program/merge_program.hpp"
#include "ein/search/optimize.hpp"
#include "ein/search/program/optimized_program.hpp"
#include "ein/search/parallel.hpp"
#include "ein/search/program/program_post.hpp"
#include "ein/search/program/choose_subprogram_plans.hpp"
#include "ein/search/program/subprograms.hpp"

namespace ein::search {

namespace detail {

// The plan of `s` as written, its only candidate.
inline optimized as_written(const ir::scope_ptr& s, const cost::model& model, const std::string& model_text) {
  optimized r;
  r.baseline = r.best = instantiate(s, model);
  r.candidates.push_back({r.best, "as written", {}});
  r.model = model_text;
  return r;
}

}  // namespace detail

namespace detail {

// `r` takes choice `choice` (a candidate per subprogram) and the program `a` it assembles: each
// subprogram's chosen plan and its prices as a build with capabilities `caps` runs it, the
// program, its post-optimization steps, weight transforms, origins, and the instances its
// definitions are priced as, which the assembly carried (nothing is matched again here).
inline void adopt(optimized_program& r, const std::vector<std::size_t>& choice, assembled a, const cost::model& model,
                  const ein::plan::capabilities& caps) {
  for (std::size_t i = 0; i < r.subprograms.size(); ++i) {
    auto& s = r.subprograms[i];
    s.result.chosen = choice.at(i);
    s.result.best = s.result.candidates.at(s.result.chosen).p;
    s.seconds_as_run = seconds_as_run(s.result.best, model, caps);
    s.baseline_as_run = seconds_as_run(s.result.baseline, model, caps);
    s.kernel_seconds_as_run.clear();
    for (auto& k : s.result.best.kernels) s.kernel_seconds_as_run.push_back(kernel_seconds_as_run(k, model, caps));
  }
  r.program = std::move(a.program);
  r.post_steps = std::move(a.steps);
  r.weight_transforms.clear();
  r.origin.clear();
  auto only = ir::weight_only_definitions(r.program);
  for (auto& d : r.program.definitions) {
    if (only.count(d.name)) r.weight_transforms.push_back(d.name);
    if (auto it = a.origin.find(d.name); it != a.origin.end()) r.origin[d.name] = it->second;
  }
  r.priced = std::move(a.priced);
  r.priced_for = caps;
}

}  // namespace detail

/// `r` (a result of optimize_program) for a build with capabilities `caps`: each searched
/// subprogram's plan is chosen again among its candidates, priced as that build runs them storing
/// the subprogram's type (choose_for_backend, stored_as), then the program-level search
/// (choose_subprogram_plans, under `r.relax`) chooses again across subprograms, and the program is rebuilt,
/// post-optimized and merged; each of its definitions records the instance it is priced as
/// (`priced`, for `priced_for` = `caps`): the one its kernel was priced as in the chosen plan,
/// carried through post-optimization and merging (a definition a merge makes is priced as
/// itself). One search serves several builds this way.
inline optimized_program for_backend(optimized_program r, const cost::model& model, const ein::plan::capabilities& caps) {
  auto start = std::chrono::steady_clock::now();
  for (auto& s : r.subprograms) {
    for (auto& c : s.result.candidates) c.p = stored_as(std::move(c.p), s.type, model);
    s.result.baseline = stored_as(std::move(s.result.baseline), s.type, model);
    s.result.best = stored_as(std::move(s.result.best), s.type, model);
    if (s.searched) choose_for_backend(s.result, model, caps, s.type);
  }
  auto relaxed = choose_subprogram_plans(r, model, caps, r.relax);
  detail::adopt(r, relaxed.choice, std::move(relaxed.best), model, caps);
  r.relax_stats = relaxed.stats;
  r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

/// The threads search `w` of `searches` run at once on `threads` explores on: the threads the
/// searches leave, shared out when they start (all of them for a single search; ⌊threads /
/// searches⌋ each, the first `threads mod searches` one more, while there are fewer searches than
/// threads; one each otherwise). A search that ends early does not hand its threads on.
inline unsigned explore_threads(unsigned threads, std::size_t searches, std::size_t w) {
  if (searches == 0 || searches >= threads) return 1;
  auto n = static_cast<unsigned>(searches);
  return threads / n + (w < threads % n ? 1 : 0);
}

/// Optimizes a program (EinNet Algorithm 1):
///  1. joins chains of contractions (join_linear: a contraction that one definition alone
///     contracts, linearly, is inlined into it, up to joined_summations summations, where the
///     joined search may find more than the parts' and the program as written as the build runs
///     it gets no dearer; `join_steps`), and an addition of two contractions with them where one
///     search can merge the two sums into one (join_addition: a LoRA adapter with its layer),
///     then splits the program into subprograms (split_program): each definition, and apart from it each
///     summation a non-linear function (relu, sigmoid, tanh, exp) is applied to, which becomes a
///     definition `d_s1`, `d_s2`, ... that the activation (a cheap elementwise eOperator) reads;
///     so a matmul chain is searched as one expression and reassociated, and
///     the boundaries sit at activations, elementwise steps and shared tensors;
///  2. searches every subprogram that has a summation with optimize(source, rules, model, opts),
///     once per search_key (subprograms that differ only in the tensors they read, such as a
///     network's repeated blocks, share the first one's search, renamed: `shares`), on up to
///     search_threads(opts.threads) threads (subprograms are independent; the result does not
///     depend on the number; each search explores on its share of them, explore_threads),
///     within what is left of `opts.limits.time` for all of them (a subprogram whose search
///     would start after it is taken as written), and takes the
///     candidate that is cheapest as a build with capabilities `caps` runs it (library kernels
///     it does not call are priced as eOperators; every_operator(), the default, prices as the
///     model does), a plan with a compute-bound eOperator only where no other is left, and
///     never one priced above the plan as written (choose_for_backend); the others are
///     instantiated as written;
///  3. writes each chosen plan as definitions, one per kernel (`d_k1`, `d_k2`, ..., the last
///     named `d`, on d's box), each with the library instance its kernel was priced as for the
///     build (nothing for an eOperator), which the next steps keep and the plan binds;
///  4. post-optimizes across the program: removes identity copies, and fuses an eOperator into
///     the eOperator that alone reads it where traversal merging is exact and the model says it
///     is cheaper (a weight transform only into a weight transform);
///  5. merges definitions that contract one shared operand with different weights into one
///     contraction (EinNet Figure 3(a)), and, where `opts.program.batch_contractions` asks,
///     contractions of one shape over different inputs into one batched contraction (Figure 15),
///     where the model predicts a gain as the build runs it (merge_contractions);
///  6. searches which candidate each subprogram uses across the program (choose_subprogram_plans, under
///     `opts.program`: relaxation alpha and expanded choices), steps 3 to 5 pricing each choice:
///     a choice whose plans are each dearer alone can merge into a cheaper program (EinNet
///     Figure 15); the result records each subprogram's candidate (`result.chosen`).
/// Every step keeps the program's predicted time as the build runs it (program_seconds) at or
/// below that of the program as written.
/// Definitions that read weights only are listed in `weight_transforms`. Deterministic: results
/// are merged in program order, so the same program gives the same result (searches that run
/// out of time excepted). `progress` is called from the searching threads, one call at a time,
/// with the search's number among the distinct searches (statistics::search, ::searches).
/// make_plan turns the result into the plan of a build.
/// @throws user_error where `source` breaks the IR's invariants (ir::verify): every rule assumes
/// them, and a program the front end or the JSON reader gives holds them.
inline optimized_program optimize_program(const ir::program& source, std::span<const derive::rule> rules,
                                          const cost::model& model, const options& opts = {},
                                          const progress_fn& progress = {},
                                          const ein::plan::capabilities& caps = ein::plan::every_operator()) {
  auto start = std::chrono::steady_clock::now();
  ir::verify(source);
  optimized_program out;
  out.source = source;
  out.model = model.describe();
  out.program.name = source.name;
  out.program.tensors = source.tensors;
  out.program.outputs = source.outputs;
  out.relax = opts.program;

  std::set<std::string> taken;
  for (auto& t : source.tensors) taken.insert(t.name);
  for (auto& d : source.definitions) taken.insert(d.name);
  auto joined = join_addition(join_linear(source, model, caps, &out.join_steps), model, caps, &out.join_steps);
  out.subprograms = split_program(std::move(joined), taken);
  // Subprograms with one search_key are searched once, the first of them in program order.
  std::vector<std::size_t> work;
  std::vector<search_key> keys(out.subprograms.size());
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < out.subprograms.size(); ++i) {
    auto& s = out.subprograms[i];
    if (!s.searched) {
      s.result = detail::as_written(s.source, model, out.model);
      continue;
    }
    keys[i] = key_of(s.source, s.type);
    auto [at, fresh] = first.try_emplace(keys[i].key, i);
    if (fresh)
      work.push_back(i);
    else
      s.shares = at->second;
  }
  std::mutex report_lock;
  // Search w's progress, numbered, one call at a time.
  auto numbered = [&](std::size_t w) -> progress_fn {
    if (!progress) return {};
    return [&, w](const statistics& st) {
      std::lock_guard lock(report_lock);
      auto n = st;
      n.search = w + 1;
      n.searches = work.size();
      progress(n);
    };
  };
  // The time budget bounds the subprograms together: each search gets what is left of it, and
  // one that would start after it is taken as written (its search cut).
  const auto deadline = start + opts.limits.time;
  const unsigned threads = search_threads(opts.threads);
  out.threads = for_each_parallel(work.size(), threads, [&](std::size_t w) {
    auto& s = out.subprograms[work[w]];
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      s.result = detail::as_written(s.source, model, out.model);
      s.result.stats.reason = stop_reason::time;
      return;
    }
    auto within = opts;
    within.limits.time = left;
    within.threads = explore_threads(threads, work.size(), w);
    s.result = optimize(s.source, rules, model, within, numbered(w));
  });
  for (std::size_t i = 0; i < out.subprograms.size(); ++i)
    if (auto& s = out.subprograms[i]; s.shares)
      s.result = renamed_result(out.subprograms[*s.shares].result, keys[*s.shares].reads, keys[i].reads);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return for_backend(std::move(out), model, caps);
}

/// The plan of `r`'s program for a build with capabilities `caps` (plan::make_verified_plan,
/// once the program is checked here), with how
/// it was reached: each subprogram's derivation (its chosen candidate's target and steps), the
/// program-level steps (the joins, then post-optimization), each definition's origin, and the
/// instance the search priced each definition as (`r.priced`, carried from the kernels of the
/// chosen plans, not matched again), which the plan binds (for `r.priced_for`, exactly; for
/// another build, where it runs it).
/// Example: the plan of Figure 5's Conv3x3 for a cuda build has a `library matmul(...)` kernel
/// and an OffsetReduce eOperator, both from subprogram `conv`, whose derivation reads
/// `split_summation(...)`, `substitute_variable(...)`, ..., `match(at /0: operator matmul)`.
inline ein::plan::program_plan make_plan(const optimized_program& r, const ein::plan::capabilities& caps) {
  // optimize_program verified the source: an optimized program that breaks the IR's invariants
  // is a rule's fault, caught before it becomes a kernel.
  try {
    ir::verify(r.program);
  } catch (const user_error& e) {
    throw internal_error("the optimized program does not verify: " + std::string(e.what()));
  }
  ein::plan::provenance how;
  for (auto& s : r.subprograms) {
    auto& chosen = s.result.candidates.at(s.result.chosen);
    how.derivations.push_back(
        {s.name, s.definition, s.searched, chosen.target, chosen.steps, s.seconds_as_run, s.baseline_as_run});
  }
  how.program_steps = r.join_steps;
  how.program_steps.insert(how.program_steps.end(), r.post_steps.begin(), r.post_steps.end());
  how.origin = r.origin;
  how.priced = r.priced;
  how.priced_for = r.priced_for;
  return ein::plan::make_verified_plan(r.program, caps, std::move(how));
}

}  // namespace ein::search
