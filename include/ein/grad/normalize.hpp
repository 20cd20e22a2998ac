// The form differentiation works on: every nested scope a definition of its own, every
// definition's box from 0, so that each value differentiated is a named tensor.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"

namespace ein::grad {

/// `s` over a traversal box from 0: each traversal iterator t of [lo, hi) now in [0, hi − lo),
/// read as t + lo in the body; `s` itself when every lower bound is 0.
inline ir::scope_ptr from_zero(const ir::scope_ptr& s) {
  std::map<std::string, ir::affine> shift;
  std::vector<ir::iterator> traversal;
  for (auto& i : s->traversal) {
    if (i.lo != 0) shift[i.name] = ir::idx(i.name) + i.lo;
    traversal.push_back({i.name, 0, i.extent()});
  }
  if (shift.empty()) return s;
  ir::ranges r;
  r.add(traversal);
  r.add(s->summation);
  return ir::make_scope(std::move(traversal), s->summation, derive::substitute(s->body, shift, r), s->reduce);
}

namespace detail {

// Names a program's nested scopes, innermost first, as definitions placed before their reader.
class name_nested {
 public:
  name_nested(std::vector<std::string>& taken, std::vector<ir::definition>& out) : taken_(taken), out_(out) {}

  // `s` with every access to a nested scope reading a new definition instead; `owner` names them.
  ir::scope_ptr lift(const ir::scope_ptr& s, const std::string& owner, ir::dtype type) {
    return ir::make_scope(s->traversal, s->summation, ir::map_accesses(s->body, [&](const ir::access& a) -> ir::expr {
      auto* nested = std::get_if<ir::scope_ptr>(&a.source);
      if (!nested) return nullptr;
      auto it = named_.find(nested->get());
      if (it == named_.end()) {
        ir::scope_ptr value = from_zero(lift(*nested, owner, type));
        auto name = derive::fresh_name(owner + "_nested", taken_);
        taken_.push_back(name);
        out_.push_back({name, value, type});
        it = named_.emplace(nested->get(), ir::tensor{name, type, value->shape(), ir::tensor_role::definition}).first;
      }
      auto lower = (*nested)->lower();
      std::vector<ir::affine> index;
      for (std::size_t d = 0; d < a.index.size(); ++d) index.push_back(a.index[d] - lower[d]);
      return ir::make_access(it->second, std::move(index));
    }), s->reduce);
  }

 private:
  std::vector<std::string>& taken_;
  std::vector<ir::definition>& out_;
  std::map<const ir::scope*, ir::tensor> named_;
};

}  // namespace detail

/// `p` with each nested scope a definition of its own, named `<definition>_nested1`, ... and
/// placed before the definition that reads it (a scope read twice is named once), and every
/// definition's box from 0 (only an unread output may start elsewhere: it keeps its shape).
/// The outputs and every value are unchanged.
/// Example: `d = L_i relu({L_j Σ_k A[j, k]}[i - 1])` becomes `d_nested1 = L_j Σ_k A[j, k]` and
/// `d = L_i relu(d_nested1[i - 1])`.
inline ir::program normalize(const ir::program& p) {
  std::vector<std::string> taken;
  for (auto& t : p.tensors) taken.push_back(t.name);
  for (auto& d : p.definitions) taken.push_back(d.name);
  ir::program out{p.name, p.tensors, {}, p.outputs};
  detail::name_nested lift(taken, out.definitions);
  for (auto& d : p.definitions) {
    auto value = from_zero(lift.lift(d.value, d.name, d.type));
    out.definitions.push_back({d.name, value, d.type});
  }
  return out;
}

}  // namespace ein::grad
