// Recomputing forward values in the backward part: an elementwise definition is fused into every
// backward reader, any other is computed again by a copy placed before its first backward reader,
// so that the forward's buffer can be given back once the forward is done with it.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/grad/arithmetic.hpp"
#include "ein/grad/gradient.hpp"
#include "ein/grad/names.hpp"
#include "ein/ir/bounds.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/visit.hpp"

namespace ein::grad {

/// Whether the backward part fuses definition `d` into its readers when it recomputes it: `d` has
/// no summation (and is a sum, not a max or min, which leaves points out).
inline bool fused_when_recomputed(const ir::definition& d) {
  return d.value->summation.empty() && d.value->reduce == ir::reduction::sum;
}

/// The forward definitions of `g` that its backward part reads, in forward order.
inline std::vector<std::string> forward_values_read(const gradient_program& g) {
  std::set<std::string> read;
  for (std::size_t k = g.forward_definitions; k < g.program.definitions.size(); ++k)
    for (auto& n : ir::tensor_names_read(g.program.definitions[k].value->body, ir::depth::nested)) read.insert(n);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < g.forward_definitions; ++k)
    if (read.count(g.program.definitions[k].name)) out.push_back(g.program.definitions[k].name);
  return out;
}

namespace detail {

// The reads of the definitions `recompute` in a backward scope, rewritten: a fused definition's
// body at the index read (times indicators where the index may leave its box, which reads 0 there
// and the body need not), another's copy `<name>_recompute`.
class recomputation {
 public:
  recomputation(const gradient_program& g, const std::set<std::string>& recompute) : recompute_(recompute) {
    std::vector<std::string> taken;
    for (auto& t : g.program.tensors) taken.push_back(t.name);
    for (auto& d : g.program.definitions) taken.push_back(d.name);
    for (std::size_t k = 0; k < g.forward_definitions; ++k) {
      const auto& d = g.program.definitions[k];
      if (!recompute.count(d.name)) continue;
      if (fused_when_recomputed(d)) {
        fused_[d.name] = ir::make_scope(d.value->traversal, {}, rewrite(d.value)->body);
      } else {
        auto name = unused_name(d.name + "_recompute", taken);
        copies_.push_back({name, rewrite(d.value), d.type});
        copy_of_[d.name] = copies_.back();
      }
    }
  }

  // `s` reading the recomputed values.
  ir::scope_ptr rewrite(const ir::scope_ptr& s) const {
    ir::ranges box(*s);
    ir::expr body = ir::map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
      auto* t = std::get_if<ir::tensor>(&a.source);
      if (!t || !recompute_.count(t->name)) return nullptr;
      if (auto c = copy_of_.find(t->name); c != copy_of_.end()) {
        ir::tensor copy{c->second.name, t->type, t->shape, ir::tensor_role::definition};
        return ir::make_access(copy, a.index);
      }
      const ir::scope& f = *fused_.at(t->name);
      std::map<std::string, ir::affine> at;
      ir::expr mask = ir::make_constant(1);
      for (std::size_t d = 0; d < f.traversal.size(); ++d) {
        at[f.traversal[d].name] = a.index[d];
        if (!ir::values(f.traversal[d]).contains(ir::bounds(a.index[d], box)))
          mask = times(mask, indicator(a.index[d], 0, f.traversal[d].hi));
      }
      // simultaneous: an index naming one of f's iterators is not substituted again
      return times(mask, derive::substitute(f.body, at, box));
    });
    return body == s->body ? s : ir::make_scope(s->traversal, s->summation, body, s->reduce);
  }

  const std::vector<ir::definition>& copies() const { return copies_; }

 private:
  const std::set<std::string>& recompute_;
  std::map<std::string, ir::scope_ptr> fused_;
  std::vector<ir::definition> copies_;
  std::map<std::string, ir::definition> copy_of_;
};

}  // namespace detail

/// `g` with the forward definitions `recompute` recomputed by its backward part: a definition
/// without summation fused into each backward reader (its body at the index read), any other
/// computed again by a copy `<name>_recompute` placed before the first backward definition that
/// reads it. The forward part and every value are unchanged.
/// Example: recomputing h = `L_{i,j} relu(z[i, j])`, the backward's `step(h[g1, g2])` becomes
/// `step(relu(z[g1, g2]))`.
inline gradient_program recompute(const gradient_program& g, const std::set<std::string>& recompute) {
  detail::recomputation r(g, recompute);
  gradient_program out = g;
  out.program.definitions.resize(g.forward_definitions);
  std::set<std::string> placed;
  std::function<void(const ir::scope_ptr&)> place_copies = [&](const ir::scope_ptr& reader) {
    for (auto& n : ir::tensor_names_read(reader->body, ir::depth::nested))
      for (auto& c : r.copies())
        if (c.name == n && placed.insert(n).second) {
          place_copies(c.value);
          out.program.definitions.push_back(c);
        }
  };
  for (std::size_t k = g.forward_definitions; k < g.program.definitions.size(); ++k) {
    auto d = g.program.definitions[k];
    d.value = r.rewrite(d.value);
    place_copies(d.value);
    out.program.definitions.push_back(std::move(d));
  }
  return out;
}

}  // namespace ein::grad
