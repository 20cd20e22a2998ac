// Subprograms (EinNet Algorithm 1): splitting a program at non-linear activations into parts
// searched on their own, and writing each part's chosen plan back as definitions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/positions.hpp"
#include "ein/search/optimize.hpp"

namespace ein::search {

/// One subprogram of a program: a definition's value, or a summation under a non-linear
/// activation of it, searched (or, without a summation, instantiated as written) on its own.
/// What running a subprogram's chosen plan and its plan as written on the machine found (seconds,
/// each the fastest of runs taken in turns), and whether the choice gave way to the plan as
/// written (search::keep_never_worse).
struct measured_check {
  double chosen = 0, written = 0;
  bool replaced = false;
};

struct subprogram {
  std::string name;        // the definition it becomes: `d`, or `d_s1`, ... for a summation
  std::string definition;  // the definition of the source program it comes from
  ir::scope_ptr source;
  ir::dtype type = ir::dtype::f32;
  bool searched = false;   // false: no summation to derive; `result` is the plan as written
  optimized result;
  double seconds_as_run = 0;  // result.best's predicted time with the backend's library calls
  double baseline_as_run = 0;  // result.baseline's (the plan as written), priced the same way
  std::vector<double> kernel_seconds_as_run;  // each kernel of result.best, priced the same way
  /// The earlier subprogram with the same search_key whose search this one's result is (renamed),
  /// or none where it was searched itself.
  std::optional<std::size_t> shares;
  /// Where the chosen plan was run against the plan as written: what that found.
  std::optional<measured_check> checked;
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

}  // namespace detail

/// The subprograms of `source` in program order: each definition, and apart from it each
/// summation a non-linear function (relu, sigmoid, tanh, exp) is applied to, which becomes a
/// definition `d_s1`, `d_s2`, ... (a name not yet in `taken`, which keeps it) that the activation
/// reads, of the type the definition holds such values in (float for a 16-bit one: ir::held_type). A
/// subprogram is `searched` when it has a summation; the others are not searched.
/// Example: `out = relu(Σ_k A·B) + 1` gives `out_s1 = Σ_k A·B` (searched) and
/// `out = relu(out_s1) + 1`.
inline std::vector<subprogram> split_program(const ir::program& source, std::set<std::string>& taken) {
  std::vector<subprogram> out;
  for (auto& d : source.definitions) {
    if (!d.value) throw user_error("program `" + source.name + "`: definition `" + d.name + "` has no value");
    std::vector<ir::scope_ptr> split;
    detail::summations_under_activation(d.value->body, false, split);
    std::map<const ir::scope*, ir::tensor> as_tensor;
    for (auto& s : split) {
      auto n = detail::fresh_definition_name(d.name + "_s" + std::to_string(as_tensor.size() + 1), taken);
      const ir::dtype type = ir::held_type(d.type);
      as_tensor[s.get()] = detail::definition_tensor(n, *s, type);
      out.push_back({n, d.name, s, type, false, {}, 0, 0, {}, {}});
    }
    auto body = derive::map_accesses(d.value->body, [&](const ir::access& a) -> ir::expr {
      auto* s = std::get_if<ir::scope_ptr>(&a.source);
      auto it = s ? as_tensor.find(s->get()) : as_tensor.end();
      return it == as_tensor.end() ? nullptr : ir::make_access(it->second, a.index);
    });
    out.push_back({d.name, d.name, derive::with_body(*d.value, body), d.type, false, {}, 0, 0, {}, {}});
  }
  for (auto& s : out) s.searched = detail::has_summation(*s.source);
  return out;
}

/// The definitions of plan `p` of subprogram `s` (by default its chosen plan), one per kernel:
/// `<s.name>_<k>` (fresh in `taken`) for the kernels before the last, which keeps the name
/// `s.name`, the source's box and `s.type`; each reads the definitions of the kernels it read. The
/// others are of ir::held_type(s.type): `s.type`, float where it is 16-bit.
inline std::vector<ir::definition> plan_definitions(const subprogram& s, std::set<std::string>& taken,
                                                    const expression_plan* p = nullptr) {
  auto& kernels = (p ? *p : s.result.best).kernels;
  std::vector<ir::definition> out;
  std::map<std::string, ir::tensor> names;  // k<i> → the kernel's definition tensor
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto& k = kernels[i];
    bool last = i + 1 == kernels.size();
    std::string n = last ? s.name : detail::fresh_definition_name(s.name + "_" + k.name, taken);
    auto value = detail::rename_reads(k.flat, names);
    if (last) value = detail::moved_to(value, s.source->lower());
    const ir::dtype type = last ? s.type : ir::held_type(s.type);
    names[k.name] = detail::definition_tensor(n, *value, type);
    out.push_back({n, value, type});
  }
  return out;
}

}  // namespace ein::search
