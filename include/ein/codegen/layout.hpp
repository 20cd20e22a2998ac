// The buffers and steps of a generated plan: one eOperator per definition, nested scopes first
// materialized as temporaries of their own, all in an order where every read precedes its use;
// and the split of a prepared plan (weight transforms once, the other steps on every run).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "ein/detail/error.hpp"
#include "ein/ir/expr.hpp"

namespace ein::codegen {

/// A tensor of the plan: a bound input, weight or output, or a temporary the plan allocates.
struct buffer {
  enum class kind : std::uint8_t { input, output, temporary };
  std::string name;      // the IR name (bindings use it); a nested scope gets `<def>.<k>`
  std::string variable;  // its C++ pointer variable, `t_<name>`
  ir::dtype type = ir::dtype::f32;
  std::vector<std::int64_t> lower, shape;
  kind role = kind::input;
  bool weight = false;  // an input that is a weight of the program (bound by ein::prepare)

  std::int64_t count() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

/// One eOperator: computes buffer `target` from the buffers in `reads` (in order of first read).
struct step {
  std::size_t target = 0;
  ir::scope_ptr value;
  std::string function;  // the base name of its host function and CUDA kernel, `eop_<name>`
  std::vector<std::size_t> reads;
  /// Reads weights only (directly or through other weight-only steps): a weight transform, run
  /// before every other step.
  bool weight_only = false;
};

/// C++ identifiers made from IR names: invalid characters become `_`, and each is unique in its
/// table (a repeat gets `_2`, `_3`, ...), deterministically.
class identifier_table {
 public:
  std::string make(const std::string& prefix, const std::string& raw) {
    std::string id = prefix;
    for (char ch : raw) {
      bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
      id += ok ? ch : '_';
    }
    std::string unique = id;
    for (int k = 2; !used_.insert(unique).second; ++k) unique = id + "_" + std::to_string(k);
    return unique;
  }

 private:
  std::set<std::string> used_;
};

/// Buffers and steps of a program, in execution order.
struct layout {
  std::vector<buffer> buffers;
  std::vector<step> steps;
  std::map<std::string, std::size_t> by_name;       // inputs, weights and definitions
  std::map<const ir::scope*, std::size_t> by_scope;  // materialized nested scopes

  /// The buffer an access reads.
  std::size_t source_of(const ir::access& a) const {
    if (auto* s = std::get_if<ir::scope_ptr>(&a.source)) return by_scope.at(s->get());
    auto& t = std::get<ir::tensor>(a.source);
    auto it = by_name.find(t.name);
    if (it == by_name.end())
      throw user_error("tensor `" + t.name + "` is read but is neither an input or weight of the "
                       "program nor a definition before the one that reads it");
    return it->second;
  }
};

namespace detail {

struct layout_builder {
  layout out;
  identifier_table buffer_ids, function_ids;

  std::size_t add_buffer(std::string name, ir::dtype type, std::vector<std::int64_t> lower,
                         std::vector<std::int64_t> shape, buffer::kind role) {
    std::string var = buffer_ids.make("t_", name);
    out.buffers.push_back({std::move(name), std::move(var), type, std::move(lower),
                           std::move(shape), role, false});
    return out.buffers.size() - 1;
  }

  // Materializes every nested scope read by `e` (inner ones first), recording reads in order.
  void visit(const ir::expr& e, const std::string& owner, ir::dtype type, int& nested,
             std::vector<std::size_t>& reads) {
    if (!e) throw internal_error("a scope body is null");
    if (auto* u = std::get_if<ir::unary>(e.get())) return visit(u->arg, owner, type, nested, reads);
    if (auto* b = std::get_if<ir::binary>(e.get())) {
      visit(b->lhs, owner, type, nested, reads);
      return visit(b->rhs, owner, type, nested, reads);
    }
    auto* a = std::get_if<ir::access>(e.get());
    if (!a) return;
    if (auto* s = std::get_if<ir::scope_ptr>(&a->source); s && !out.by_scope.count(s->get())) {
      std::string name = owner + "." + std::to_string(++nested);
      std::size_t id = add_buffer(name, type, (*s)->lower(), (*s)->shape(),
                                  buffer::kind::temporary);
      add_step(id, *s, name, owner, type, nested);
      out.by_scope[s->get()] = id;
    }
    std::size_t src = out.source_of(*a);
    if (std::find(reads.begin(), reads.end(), src) == reads.end()) reads.push_back(src);
  }

  void add_step(std::size_t target, const ir::scope_ptr& value, const std::string& name,
                const std::string& owner, ir::dtype type, int& nested) {
    if (!value) throw user_error("definition `" + name + "` has no value");
    step s{target, value, function_ids.make("eop_", name), {}};
    visit(value->body, owner, type, nested, s.reads);
    out.steps.push_back(std::move(s));
  }
};

}  // namespace detail

/// The plan of `p` as written: each definition is one eOperator; a nested scope in a body is an
/// eOperator of its own writing a temporary, scheduled before its reader (shared scopes once).
/// Definitions that are no output are temporaries too. Weight transforms (steps that read
/// weights only, directly or through other weight transforms) come first, in program order.
/// @pre definitions are in topological order and each names a distinct tensor.
inline layout make_layout(const ir::program& p) {
  detail::layout_builder b;
  auto& by_name = b.out.by_name;
  std::set<std::size_t> weights;  // weight buffers, then the targets of weight transforms
  for (auto& t : p.tensors) {
    if (by_name.count(t.name)) throw user_error("program `" + p.name + "`: tensor `" + t.name + "` is declared twice");
    by_name[t.name] = b.add_buffer(t.name, t.type, std::vector<std::int64_t>(t.shape.size(), 0),
                                   t.shape, buffer::kind::input);
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
    // The step's reads (and nested temporaries) are recorded before the definition's own
    // buffer is visible, so a definition cannot read itself.
    std::size_t id = b.add_buffer(d.name, d.type, d.value->lower(), d.value->shape(),
                                  outputs.count(d.name) ? buffer::kind::output : buffer::kind::temporary);
    b.add_step(id, d.value, d.name, d.name, d.type, nested);
    by_name[d.name] = id;
  }
  for (auto& s : b.out.steps) {
    s.weight_only = !s.reads.empty() && std::all_of(s.reads.begin(), s.reads.end(),
                                                    [&](std::size_t r) { return weights.count(r) > 0; });
    if (s.weight_only) weights.insert(s.target);
  }
  std::stable_partition(b.out.steps.begin(), b.out.steps.end(), [](const step& s) { return s.weight_only; });
  return b.out;
}

/// How a prepared plan splits `layout`'s steps: prepare() runs the weight transforms once and
/// keeps, in one storage block, every weight or transformed weight that the other steps read;
/// run_prepared() runs the other steps, reading the storage instead of bound weights.
struct preparation {
  /// Buffers are aligned to this many bytes in the storage (cudaMalloc's alignment).
  static constexpr std::int64_t alignment = 256;

  std::vector<bool> in_prepare;     // per step: run by prepare()
  std::vector<std::size_t> stored;  // buffers kept in the storage, in buffer order
  std::vector<std::int64_t> offset;  // byte offset of each stored buffer
  std::int64_t bytes = 0;            // the storage's size

  /// The position of buffer `id` in `stored`, or stored.size() when it is not kept.
  std::size_t slot(std::size_t id) const {
    return static_cast<std::size_t>(std::find(stored.begin(), stored.end(), id) - stored.begin());
  }
  bool keeps(std::size_t id) const { return slot(id) < stored.size(); }
};

inline std::int64_t element_bytes(ir::dtype t) { return t == ir::dtype::f32 ? 4 : 8; }

/// The preparation of `plan`: a weight transform runs in prepare() when it writes a temporary
/// and reads only weights and transforms that prepare() runs; a weight-only step that writes
/// an output runs in every run_prepared() (from the storage), since outputs are bound there.
/// The storage keeps the buffers of prepare() (weights included) that run_prepared() reads,
/// so a prepared plan never reads the buffers bound to prepare() again.
inline preparation make_preparation(const layout& plan) {
  preparation r;
  std::vector<bool> ready(plan.buffers.size(), false);  // known once prepare() ran
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) ready[id] = plan.buffers[id].weight;
  for (auto& s : plan.steps) {
    bool prepared = s.weight_only && plan.buffers[s.target].role == buffer::kind::temporary &&
                    std::all_of(s.reads.begin(), s.reads.end(), [&](std::size_t id) { return ready[id]; });
    r.in_prepare.push_back(prepared);
    if (prepared) ready[s.target] = true;
  }
  std::vector<bool> read_later(plan.buffers.size(), false);
  for (std::size_t k = 0; k < plan.steps.size(); ++k)
    if (!r.in_prepare[k])
      for (auto id : plan.steps[k].reads) read_later[id] = true;
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    if (!ready[id] || !read_later[id]) continue;
    r.bytes = (r.bytes + preparation::alignment - 1) / preparation::alignment * preparation::alignment;
    r.stored.push_back(id);
    r.offset.push_back(r.bytes);
    r.bytes += plan.buffers[id].count() * element_bytes(plan.buffers[id].type);
  }
  return r;
}

}  // namespace ein::codegen
