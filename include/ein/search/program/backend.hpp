// Plans as a build runs them: which kernels are library calls for its capabilities, what a plan
// costs then, and the choice of each searched subprogram's plan for the build.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/error.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/visit.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/instantiate.hpp"
#include "ein/search/optimize.hpp"
#include "ein/search/program/pack_weights.hpp"

namespace ein::search {

/// Whether kernel `k` runs as a library call for a build with capabilities `caps`: a library
/// operator other than elementwise that the build calls (called_operator).
inline bool runs_as_library(const priced_kernel& k, const ein::plan::capabilities& caps) {
  auto* o = called_operator(k, caps);
  return o && o->op.kind != match::op_kind::elementwise;
}

/// The predicted time of kernel `k` as a build with capabilities `caps` runs it: as the operator
/// it calls (called_operator), else as the eOperator it becomes (a CPU BLAS has no
/// convolutions); a weight transform costs nothing at run time.
inline double kernel_seconds_as_run(const priced_kernel& k, const cost::model& model, const ein::plan::capabilities& caps) {
  if (caps.every_operator || k.weight_only || !k.library()) return k.seconds;
  auto* o = called_operator(k, caps);
  return o ? o->seconds : eoperator_seconds(*k.value, model);
}

/// The predicted time of `p` as a build with capabilities `caps` runs it: its kernels'
/// (kernel_seconds_as_run), added.
inline double seconds_as_run(const expression_plan& p, const cost::model& model, const ein::plan::capabilities& caps) {
  if (caps.every_operator) return p.seconds;
  double t = 0;
  for (auto& k : p.kernels) t += kernel_seconds_as_run(k, model, caps);
  return t;
}

/// The instance definition `d` is priced as for a build with capabilities `caps`, as
/// program_seconds prices it: the library operator of its kernel (search::instantiate_stored: the
/// cheapest under `model`) where the build calls it (runs_as_library), else nothing (an
/// eOperator). A weight transform is priced at nothing at run time but bound alike.
inline std::optional<match::instance> priced_instance_of(const ir::definition& d, const cost::model& model,
                                                         const ein::plan::capabilities& caps) {
  auto k = instantiate_stored(d.value, d.type, model).kernels.back();
  return runs_as_library(k, caps) ? std::optional{called_operator(k, caps)->op} : std::nullopt;
}

/// The instance each definition of `p` is priced as (priced_instance_of), matched again from the
/// program as written: for a program priced as it stands (generator/host_measured.hpp). The
/// program-level search does not call it: its assembly carries the instance each definition's
/// kernel was priced as (written_instance).
/// Example: ResNet-50's 1×1 stride 2 for a host build with CBLAS and oneDNN under the host
/// profile is the conv2d instance oneDNN calls, not the batch of products CBLAS would run.
inline std::map<std::string, std::optional<match::instance>> priced_instances(const ir::program& p,
                                                                              const cost::model& model,
                                                                              const ein::plan::capabilities& caps) {
  std::map<std::string, std::optional<match::instance>> r;
  for (auto& d : p.definitions) r[d.name] = priced_instance_of(d, model, caps);
  return r;
}

/// The instance kernel `k` of a plan is priced as for a build with capabilities `caps`, read over
/// the definitions the plan is written as (plan_definitions): the operator the build calls
/// (called_operator) where it runs as a library call (runs_as_library), else nothing; each nested
/// scope it reads becomes the tensor `written` gives for the kernel computing it (by kernel
/// name, `k<i>`: its flat form reads that name where the scope reads the nested scope). So the
/// search's price is bound as it was found, with no second instantiation.
inline std::optional<match::instance> written_instance(const priced_kernel& k, const ein::plan::capabilities& caps,
                                                       const std::map<std::string, ir::tensor>& written) {
  if (!runs_as_library(k, caps)) return std::nullopt;
  match::instance op = called_operator(k, caps)->op;
  // k.flat is k.value with each nested scope read as its kernel's tensor, access for access.
  std::vector<const ir::scope*> nested;
  ir::for_each_access(k.value->body, [&](const ir::access& a) {
    auto* s = std::get_if<ir::scope_ptr>(&a.source);
    nested.push_back(s ? s->get() : nullptr);
  });
  std::map<const ir::scope*, ir::tensor> as_tensor;
  std::size_t at = 0;
  ir::for_each_access(k.flat->body, [&](const ir::access& a) {
    if (auto* s = nested.at(at++)) as_tensor.emplace(s, written.at(std::get<ir::tensor>(a.source).name));
  });
  for (auto& o : op.inputs)
    if (auto* s = std::get_if<ir::scope_ptr>(&o.source)) o.source = as_tensor.at(s->get());
  return op;
}

/// True when every kernel of `p` that runs is a library call of the build or a memory-bound
/// eOperator (plan::matched_or_memory_bound, with the library kernels the build does not call
/// counted as the eOperators they become).
inline bool runs_well(const expression_plan& p, const ein::plan::capabilities& caps) {
  return std::all_of(p.kernels.begin(), p.kernels.end(), [&](const priced_kernel& k) {
    return k.weight_only || called_operator(k, caps) || match::memory_bound(match::eoperator_cost(*k.value));
  });
}

namespace detail {

// The weight tensors `p` reads, with their element size: a weight transform's elements have it.
struct weights_read {
  std::int64_t bytes = 0, element = 4;
};
inline weights_read weights_of(const expression_plan& p) {
  weights_read w;
  for (auto& t : ir::tensors_read(p.expr->body, ir::depth::nested))
    if (t.role == ir::tensor_role::weight) {
      w.element = ir::element_bytes(t.type);
      std::int64_t n = w.element;
      for (auto e : t.shape) n *= e;
      w.bytes += n;
    }
  return w;
}

}  // namespace detail

/// The bytes the weight transforms of `p` hold: the outputs of its weight-only kernels, which
/// ein::prepare keeps for the plan's lifetime and ein::run computes on every call.
inline std::int64_t weight_transform_bytes(const expression_plan& p) {
  std::int64_t points = 0;
  for (auto& k : p.kernels)
    if (k.weight_only) {
      std::int64_t n = 1;
      for (auto& i : k.flat->traversal) n *= i.extent();
      points += n;
    }
  return points * detail::weights_of(p).element;
}

/// Whether the weight transforms of `p` fit what a plan may spend on them: at most 16 times the
/// weights it reads, or 64 MiB. A relayout or a packed filter holds as much as the weights; a
/// transposed convolution over a 2×2 image as one dense GEMM (docs/discoveries.md) 4 times its
/// filter; the same over DCGAN's 32×32 images 3.2 GB for a 12 KB filter, which no device should
/// hold for one layer, and which ein::run would write on every call.
inline bool weight_transforms_fit(const expression_plan& p) {
  constexpr std::int64_t floor = std::int64_t{64} << 20, factor = 16;
  return weight_transform_bytes(p) <= std::max(floor, factor * detail::weights_of(p).bytes);
}

namespace detail {

// Each candidate of `r`'s predicted time as a build with capabilities `caps` runs it, and whether
// choose_for_backend may take it: priced at most the plan as written, its weight transforms
// fitting (weight_transforms_fit; the plan as written always does) and, where any candidate so
// admitted runs well (runs_well), running well.
struct admission {
  std::vector<double> seconds;
  std::vector<bool> admitted;
};
inline admission admit(const optimized& r, const cost::model& model, const ein::plan::capabilities& caps) {
  const double ceiling = seconds_as_run(r.baseline, model, caps);
  admission a;
  std::vector<bool> allowed, good;
  for (auto& c : r.candidates) {
    a.seconds.push_back(seconds_as_run(c.p, model, caps));
    allowed.push_back(&c == &r.candidates.front() || weight_transforms_fit(c.p));
    good.push_back(allowed.back() && runs_well(c.p, caps) && a.seconds.back() <= ceiling);
  }
  bool any_good = std::find(good.begin(), good.end(), true) != good.end();
  for (std::size_t i = 0; i < good.size(); ++i)
    a.admitted.push_back(allowed[i] && a.seconds[i] <= ceiling && (!any_good || good[i]));
  return a;
}

}  // namespace detail

/// Chooses the candidate of `r` that is cheapest as a build with capabilities `caps` runs it
/// (ties: fewer kernels at run time, then discovery order) among those that run well
/// (runs_well): as in the search, EinNet §6.1, a compute-bound eOperator is the choice only where
/// nothing else is left, since a generated loop nest is far from the peak a library reaches (the
/// model's fixed eOperator fraction of peak flatters it at scale). Each candidate first reads its
/// weight operands packed for the build (pack_weight_operands, compute-bound kernels only, which
/// are what running well asks for) where that makes it run well, or cheaper as run; its steps
/// then end with the packings, stored as `stored` (the subprogram's type: stored_as).
/// The plan as written bounds the choice: a candidate priced above it as the build runs it is
/// never chosen, however well it runs (a transposed convolution written as a scatter, cheap as
/// one eOperator, is not traded for a library call with costlier eOperators around it). Nor is
/// a derived candidate whose weight transforms do not fit (weight_transforms_fit).
/// @pre `r.candidates[0]` is the plan as written (`r.baseline`), as optimize() and the program
///      level give it; the choice restores it unpacked, so that choosing again for another
///      build still has it.
/// @post seconds_as_run(r.best) <= seconds_as_run(r.baseline), both for `caps`.
inline void choose_for_backend(optimized& r, const cost::model& model, const ein::plan::capabilities& caps,
                               ir::dtype stored) {
  r.candidates.front() = {r.baseline, "as written", {}};
  const double ceiling = seconds_as_run(r.baseline, model, caps);
  auto within = [&](double t) { return t <= ceiling; };
  pack_memo orders;  // the candidates share most kernels
  for (auto& c : r.candidates) {
    std::vector<derive::step> packings;
    auto packed = stored_as(pack_weight_operands(c.p, model, caps, &orders, pack_kernels::compute_bound_refused, &packings),
                            stored, model);
    double packed_t = seconds_as_run(packed, model, caps), c_t = seconds_as_run(c.p, model, caps);
    bool packed_good = runs_well(packed, caps), c_good = runs_well(c.p, caps);
    if (within(packed_t) != within(c_t) ? within(packed_t)
                                        : (packed_good && !c_good) || (packed_good == c_good && packed_t < c_t)) {
      c.p = std::move(packed);
      c.steps.insert(c.steps.end(), packings.begin(), packings.end());
    }
  }
  auto [t, admitted] = detail::admit(r, model, caps);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    if (!admitted[i]) continue;
    if (!best || t[i] < t[*best] ||
        (t[i] == t[*best] && r.candidates[i].p.run_time_kernels() < r.candidates[*best].p.run_time_kernels()))
      best = i;
  }
  if (!best) throw internal_error("choose_for_backend: the plan as written is above its own price");
  r.chosen = *best;
  r.best = r.candidates[*best].p;
}

}  // namespace ein::search
