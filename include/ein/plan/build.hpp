// Building the plan of a program for a build: buffers, kernels in execution order (nested scopes
// materialized first, weight transforms first), and each kernel's library call bound.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"
#include "ein/match/match.hpp"
#include "ein/plan/fuse_epilogues.hpp"
#include "ein/plan/plan.hpp"

namespace ein::plan {

/// What the search knows of how a program's definitions were reached (empty for a program
/// taken as written): its subprograms' derivations, the program-level steps, per definition (by
/// name) the index of the derivation that wrote it, and per definition the instance the search
/// priced it as, for the build `priced_for`.
struct provenance {
  std::vector<derivation> derivations;
  std::vector<derive::step> program_steps;
  std::map<std::string, std::size_t> origin;
  /// The library instance the search priced a definition's kernel as, or nothing where it
  /// priced an eOperator: the search carries it from the plan it chose to the definition the
  /// kernel became, so nothing is matched twice. make_plan binds it and matches no operator for
  /// the definition.
  std::map<std::string, std::optional<match::instance>> priced;
  capabilities priced_for;  // the build the search priced the definitions for
};

namespace detail {

// The buffer an operand reads when the operator's view of it is the whole buffer as the IR sees
// it: a named tensor whose buffer starts at 0 with the tensor's shape and element type.
inline std::optional<std::size_t> whole_buffer(const match::operand& o, const program_plan& p, ir::dtype type) {
  auto* t = std::get_if<ir::tensor>(&o.source);
  if (!t) return std::nullopt;  // a nested scope: its temporary may have another box
  auto it = p.by_name.find(t->name);
  if (it == p.by_name.end()) return std::nullopt;
  const buffer& b = p.buffers[it->second];
  for (auto l : b.lower)
    if (l != 0) return std::nullopt;
  if (b.shape != t->shape || b.type != type || t->type != type) return std::nullopt;
  return it->second;
}

// The call of `op` writing the whole target of `k` from whole buffers with library `l`, if any.
inline std::optional<library_call> call_of(const match::instance& op, const library& l, const kernel& k,
                                           const program_plan& p) {
  const buffer& out = p.buffers[k.target];
  if (op.type != out.type || op.output.offset != 0 || op.grid.elements() != out.count()) return std::nullopt;
  library_call call{l, op, {}};
  for (auto& in : op.inputs)
    if (auto id = whole_buffer(in, p, op.type)) call.inputs.push_back(*id);
  if (call.inputs.size() != op.inputs.size()) return std::nullopt;
  return call;
}

struct plan_builder {
  program_plan out;

  std::size_t add_buffer(std::string name, ir::dtype type, std::vector<std::int64_t> lower,
                         std::vector<std::int64_t> shape, buffer::kind role) {
    out.buffers.push_back({std::move(name), type, std::move(lower), std::move(shape), role, false});
    return out.buffers.size() - 1;
  }

  // Materializes every nested scope read by `e` (inner ones first), recording reads in order.
  void visit(const ir::expr& e, const std::string& owner, ir::dtype type, int& nested,
             std::vector<std::size_t>& reads, std::optional<std::size_t> origin) {
    if (!e) throw internal_error("a scope body is null");
    ir::for_each_access(e, [&](const ir::access& a) {
      if (auto* s = std::get_if<ir::scope_ptr>(&a.source); s && !out.by_scope.count(s->get())) {
        std::string name = owner + "." + std::to_string(++nested);
        const ir::dtype held = ir::held_type(type);  // float for a 16-bit definition
        std::size_t id = add_buffer(name, held, (*s)->lower(), (*s)->shape(), buffer::kind::temporary);
        add_kernel(id, *s, name, owner, held, nested, origin);
        out.by_scope[s->get()] = id;
      }
      std::size_t src = out.source_of(a);
      if (std::find(reads.begin(), reads.end(), src) == reads.end()) reads.push_back(src);
    });
  }

  void add_kernel(std::size_t target, const ir::scope_ptr& value, const std::string& name, const std::string& owner,
                  ir::dtype type, int& nested, std::optional<std::size_t> origin) {
    if (!value) throw user_error("definition `" + name + "` has no value");
    kernel k{target, value, {}, false, std::nullopt, origin};
    visit(value->body, owner, type, nested, k.reads, origin);
    out.kernels.push_back(std::move(k));
  }
};

}  // namespace detail

/// The library call that computes kernel `k` of `p` for a build with capabilities `caps`, if it
/// is one: trying the build's libraries in order, the first of the instances of the operators
/// that compute its scope (`instances`, in table order) that the library runs (library::runs:
/// compute-bound, sizes and layouts it accepts), reading inputs, weights or earlier definitions
/// as whole buffers and writing the kernel's whole buffer, all in one element type. Everything
/// else (band products, nested-scope operands, an offset output) is an eOperator.
inline std::optional<library_call> bind_call(const kernel& k, const program_plan& p, const capabilities& caps,
                                             const std::vector<match::instance>& instances) {
  for (auto& l : caps.libraries)
    for (auto& op : instances)
      if (l.runs(op))
        if (auto call = detail::call_of(op, l, k, p)) return call;
  return std::nullopt;
}

namespace detail {

// The call of kernel `k`, whose scope is definition `name`, for a build with capabilities
// `caps`, given the instance the search priced it as (`priced`, nothing: an eOperator) for the
// build `priced_for`. The build the search priced binds exactly that; another one (a PLAN_FOR
// plan) binds the priced instance where one of its libraries runs it, else matches again.
// @throws internal_error when the build the search priced cannot call the instance it priced.
inline std::optional<library_call> bind_priced(const kernel& k, const std::string& name, const program_plan& p,
                                               const capabilities& caps, const std::optional<match::instance>& priced,
                                               const capabilities& priced_for) {
  if (priced)
    for (auto& l : caps.libraries)
      if (l.runs(*priced))
        if (auto call = call_of(*priced, l, k, p)) return call;
  if (caps != priced_for) return bind_call(k, p, caps, match::match(*k.value));
  if (priced)
    throw internal_error("the search priced definition `" + name + "` of program `" + p.program + "` as " +
                         priced->str() + ", which its build (" + caps.str() + ") cannot call on the plan's buffers");
  return std::nullopt;
}

}  // namespace detail

/// The plan of `p` for a build with capabilities `caps`: each definition is one kernel; a nested
/// scope in a body is a kernel of its own writing a temporary, scheduled before its reader
/// (shared scopes once). Definitions that are no output are temporaries too. Weight transforms
/// (kernels that read weights only, directly or through other weight transforms) come first, in
/// program order. A definition the search priced (`how.priced`) is bound to the instance it
/// priced, or stays an eOperator where it priced one (detail::bind_priced); every other kernel
/// (a program taken as written, nested scopes) is a library call where bind_call finds one (its
/// operators matched here), else an eOperator. A call whose result only a bias, residual or ReLU
/// eOperator reads then ends in that as its epilogue where its library takes it (fuse_epilogues). `how` (a search's) gives the derivations and
/// each definition's origin; a program taken as written has none.
/// @pre `p` verifies (ir::verify): make_plan checks it; a caller that has just checked it (the
///      search, on its result) calls this.
inline program_plan make_verified_plan(const ir::program& p, const capabilities& caps, provenance how = {}) {
  detail::plan_builder b;
  b.out.program = p.name;
  b.out.outputs = p.outputs;
  b.out.bound_for = caps;
  b.out.derivations = std::move(how.derivations);
  b.out.program_steps = std::move(how.program_steps);
  auto& by_name = b.out.by_name;
  std::set<std::size_t> weights;  // weight buffers, then the targets of weight transforms
  for (auto& t : p.tensors) {
    if (by_name.count(t.name)) throw user_error("program `" + p.name + "`: tensor `" + t.name + "` is declared twice");
    by_name[t.name] = b.add_buffer(t.name, t.type, std::vector<std::int64_t>(t.shape.size(), 0), t.shape,
                                   buffer::kind::input);
    if (t.role == ir::tensor_role::weight) {
      weights.insert(by_name[t.name]);
      b.out.buffers[by_name[t.name]].weight = true;
    }
  }
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end());
  for (auto& o : p.outputs)
    if (!p.find_definition(o)) throw user_error("program `" + p.name + "`: output `" + o + "` is not defined");
  for (auto& d : p.definitions) {
    if (by_name.count(d.name)) throw user_error("program `" + p.name + "`: `" + d.name + "` is defined twice");
    if (!d.value) throw user_error("program `" + p.name + "`: definition `" + d.name + "` has no value");
    int nested = 0;
    std::optional<std::size_t> origin;
    if (auto it = how.origin.find(d.name); it != how.origin.end()) origin = it->second;
    // The kernel's reads (and nested temporaries) are recorded before the definition's own
    // buffer is visible, so a definition cannot read itself.
    std::size_t id = b.add_buffer(d.name, d.type, d.value->lower(), d.value->shape(),
                                  outputs.count(d.name) ? buffer::kind::output : buffer::kind::temporary);
    b.add_kernel(id, d.value, d.name, d.name, d.type, nested, origin);
    by_name[d.name] = id;
    if (nested > 0 && how.priced.count(d.name))
      throw internal_error("the search priced definition `" + d.name + "` of program `" + p.name +
                           "` as one kernel, but it reads nested scopes");
  }
  auto& kernels = b.out.kernels;
  for (auto& k : kernels) {
    k.weight_only = ir::computed_from_weights(k.reads, [&](std::size_t r) { return weights.count(r) > 0; });
    if (k.weight_only) weights.insert(k.target);
  }
  std::stable_partition(kernels.begin(), kernels.end(), [](const kernel& k) { return k.weight_only; });
  if (!caps.libraries.empty())
    for (auto& k : kernels) {
      auto& name = b.out.buffers[k.target].name;
      auto priced = how.priced.find(name);
      k.call = priced == how.priced.end()
                   ? bind_call(k, b.out, caps, match::match(*k.value))
                   : detail::bind_priced(k, name, b.out, caps, priced->second, how.priced_for);
    }
  fuse_epilogues(b.out);
  return b.out;
}

/// make_verified_plan of `p`, checked first.
/// @throws user_error where `p` breaks the IR's invariants (ir::verify): no kernel is made of a
/// program that does not verify.
/// Example: `y = L_{i,j} Σ_k A[i,k]·W[k,j]` (compute-bound) for a build calling BLAS is one
/// kernel, `library matmul(A=A+0, B=W+0) ...`; for a build calling nothing, one eOperator.
inline program_plan make_plan(const ir::program& p, const capabilities& caps, provenance how = {}) {
  ir::verify(p);
  return make_verified_plan(p, caps, std::move(how));
}

}  // namespace ein::plan
