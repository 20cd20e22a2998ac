// The vector–Jacobian product of a program: seeds for its outputs in, the gradients of the
// tensors asked for out, as one program that the search optimizes like any other.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/ranges.hpp"
#include "ein/error.hpp"
#include "ein/grad/adjoint.hpp"
#include "ein/grad/extremum.hpp"
#include "ein/grad/names.hpp"
#include "ein/grad/normalize.hpp"
#include "ein/grad/read_values.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"

namespace ein::grad {

/// A definition of the backward part whose gradient reads took the accumulating form.
struct accumulating {
  std::string definition;  // the definition of the gradient program
  std::string read;        // the tensor the forward definition read
  std::string forward;     // the forward definition
  std::vector<std::size_t> dimensions;
};

/// A program's vector–Jacobian product.
struct gradient_program {
  ir::program program;
  /// The forward's definitions, in order (nested scopes named, normalize.hpp); the backward's
  /// come after them in `program`.
  std::size_t forward_definitions = 0;
  std::vector<accumulating> accumulating_forms;
};

namespace detail {

// The definitions and tensors of `p` that depend on one of `from`, and those some output depends on.
struct dependence {
  std::set<std::string> on_targets, outputs_need;
};

inline dependence dependences(const ir::program& p, const std::vector<std::string>& from) {
  dependence d;
  d.on_targets.insert(from.begin(), from.end());
  for (auto& def : p.definitions)
    for (auto& t : ir::tensor_names_read(def.value->body, ir::depth::nested))
      if (d.on_targets.count(t)) d.on_targets.insert(def.name);
  d.outputs_need.insert(p.outputs.begin(), p.outputs.end());
  for (auto it = p.definitions.rbegin(); it != p.definitions.rend(); ++it)
    if (d.outputs_need.count(it->name))
      for (auto& t : ir::tensor_names_read(it->value->body, ir::depth::nested)) d.outputs_need.insert(t);
  return d;
}

inline ir::tensor as_tensor(const ir::definition& d) {
  return {d.name, d.type, d.value->shape(), ir::tensor_role::definition};
}

}  // namespace detail

/// The vector–Jacobian product of `forward` for the tensors `targets` (inputs, weights, or
/// definitions that are not outputs): a program with the forward's tensors and, for every output
/// y, an input `y_grad` of y's shape (the seed), whose outputs are the forward's outputs and, for
/// every target X, `X_grad` = Σ_y Σ_i y_grad[i] · ∂y[i]/∂X, of X's shape. The forward's
/// definitions come first (normalize.hpp), then the backward's in reverse order: each
/// definition's gradient is the sum of the contributions of its readers (adjoint.hpp), a max or
/// min definition d preceded by `d_first` (first_extremum). The backward reads the values of
/// elementwise forward definitions where it would recompute them (read_values.hpp). Gradients of intermediate
/// definitions are named `d_grad` (or a fresh variant), each reader's share of a gradient with
/// several readers `d_grad_1`, `d_grad_2`, ...
/// @throws user_error naming the target: one that is no tensor of the program, an output, one no
///         output depends on; naming the tensor: a seed or gradient name the program already
///         uses; naming the definition: a function without a derivative on a path to a target.
/// Example: for `y = L_{i,j} Σ_k A[i, k] · W[k, j]` and target W: input `y_grad`, output
/// `W_grad = L_{g1,g2} Σ_i y_grad[i, g2] · A[i, g1]`.
inline gradient_program gradient(const ir::program& forward, const std::vector<std::string>& targets) {
  ir::program p = normalize(forward);
  std::map<std::string, ir::tensor> tensors;
  for (auto& t : p.tensors) tensors[t.name] = t;
  for (auto& d : p.definitions) tensors[d.name] = detail::as_tensor(d);
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end()), seen;
  for (auto& x : targets) {
    auto t = tensors.find(x);
    if (t == tensors.end())
      throw user_error("gradient: `" + x + "` is no tensor of program `" + forward.name + "` (GRADIENT names its inputs, weights and definitions)");
    if (outputs.count(x))
      throw user_error("gradient: `" + x + "` is an output of program `" + forward.name + "`: its gradient is its seed `" + gradient_name(x) + "`");
    if (!seen.insert(x).second) throw user_error("gradient: `" + x + "` is named twice");
  }
  auto dep = detail::dependences(p, targets);
  for (auto& x : targets)
    if (!dep.outputs_need.count(x))
      throw user_error("gradient: no output of program `" + forward.name + "` depends on `" + x + "`");
  std::vector<std::string> taken;
  for (auto& [n, t] : tensors) taken.push_back(n);
  auto claim = [&](const std::string& n, const std::string& what) {
    if (std::find(taken.begin(), taken.end(), n) != taken.end())
      throw user_error("gradient: program `" + forward.name + "` already has a tensor named `" + n + "`, the name of " + what);
    taken.push_back(n);
  };
  auto fresh = [&](const std::string& base) { return unused_name(base, taken); };
  gradient_program out;
  out.program = {forward.name + "_gradient", p.tensors, p.definitions, p.outputs};
  out.forward_definitions = p.definitions.size();
  for (auto& y : p.outputs) {
    claim(gradient_name(y), "the seed of output `" + y + "`");
    out.program.tensors.push_back({gradient_name(y), tensors.at(y).type, tensors.at(y).shape, ir::tensor_role::input});
  }
  for (auto& x : targets) claim(gradient_name(x), "the gradient of `" + x + "`");

  auto needed = [&](const std::string& n) { return dep.on_targets.count(n) && dep.outputs_need.count(n); };
  std::set<std::string> target_set(targets.begin(), targets.end());
  std::map<std::string, std::vector<contribution>> pending;
  // The tensor holding ∂L/∂n, defined from the seed and the contributions pending for n, or
  // nothing where there is none (the gradient is 0).
  auto finish = [&](const std::string& n) -> std::optional<ir::tensor> {
    const ir::tensor& t = tensors.at(n);
    std::vector<ir::scope_ptr> terms;
    std::vector<ir::tensor> reads;
    if (outputs.count(n)) reads.push_back({gradient_name(n), t.type, t.shape, ir::tensor_role::input});
    for (auto& c : pending[n]) terms.push_back(c.value);
    const bool target = target_set.count(n) != 0;
    if (!target && terms.empty()) return reads.empty() ? std::nullopt : std::optional<ir::tensor>(reads[0]);
    std::string name = target ? gradient_name(n) : fresh(gradient_name(n));
    auto define = [&](const std::string& def, ir::scope_ptr v) {
      out.program.definitions.push_back({def, std::move(v), t.type});
      return detail::as_tensor(out.program.definitions.back());
    };
    auto note = [&](const std::string& def, const contribution& c) {
      if (!c.unsolved.empty()) out.accumulating_forms.push_back({def, n, c.reader, c.unsolved});
    };
    if (reads.empty() && terms.size() == 1) {
      note(name, pending[n][0]);
      return define(name, terms[0]);
    }
    for (std::size_t k = 0; k < terms.size(); ++k) {
      auto def = fresh(name + "_" + std::to_string(k + 1));
      note(def, pending[n][k]);
      reads.push_back(define(def, terms[k]));
    }
    std::vector<ir::iterator> box;
    std::vector<ir::affine> at;
    std::vector<std::string> names;
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      auto i = derive::fresh_name("i", names);
      names.push_back(i);
      box.push_back({i, 0, t.shape[d]});
      at.push_back(ir::idx(i));
    }
    ir::expr sum = ir::make_constant(0);
    for (auto& r : reads) sum = plus(sum, ir::make_access(r, at));
    return define(name, ir::make_scope(box, {}, sum));
  };

  for (auto it = p.definitions.rbegin(); it != p.definitions.rend(); ++it) {
    const ir::definition& d = *it;
    if (!needed(d.name)) continue;
    auto adj = finish(d.name);
    if (!adj) continue;
    std::optional<ir::tensor> first;
    if (d.value->reduce != ir::reduction::sum) {
      out.program.definitions.push_back({fresh(d.name + "_first"), first_extremum(*d.value, tensors.at(d.name)), d.type});
      first = detail::as_tensor(out.program.definitions.back());
    }
    for (auto& c : adjoint(d, *adj, first, [&](const ir::tensor& t) { return needed(t.name); }))
      pending[c.tensor.name].push_back(std::move(c));
  }
  for (auto& x : targets)
    if (!tensors.count(x) || tensors.at(x).role != ir::tensor_role::definition) finish(x);
  for (auto& x : targets) out.program.outputs.push_back(gradient_name(x));
  // The backward reads what elementwise forward definitions hold rather than recompute it.
  std::vector<ir::definition> elementwise;
  for (std::size_t k = 0; k < out.forward_definitions; ++k) {
    const auto& d = out.program.definitions[k];
    if (d.value->summation.empty() && d.value->reduce == ir::reduction::sum) elementwise.push_back(d);
  }
  for (std::size_t k = out.forward_definitions; k < out.program.definitions.size(); ++k) {
    auto& d = out.program.definitions[k];
    d.value = read_values(d.value, elementwise);
  }
  return out;
}

}  // namespace ein::grad
