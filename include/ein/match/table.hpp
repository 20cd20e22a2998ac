// The iterator mapping table (EinNet Table 2) as data, and steps 1–2 of operator matching:
// tensor mapping and iterator classification into the table's columns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/match/flatten.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

/// One column of an operator's row in the table: the iterators that appear in exactly the
/// inputs of `inputs` (a bit per input operand), in the output or not, and are summed or not.
/// `iterators` names the operator's own iterators of that column (several when the column holds
/// iterators that only the coefficients tell apart, e.g. Conv's n, h, w).
struct column {
  unsigned inputs = 0;
  bool out = false;
  std::vector<std::string> iterators;
  bool required = false;  // the column must hold at least one iterator of the scope
  bool any_rank = false;  // holds any number of iterators (elementwise operators of any rank)
  bool summed() const { return !out; }
};

/// What a body must look like for an operator.
enum class body_kind : std::uint8_t {
  product,  // alpha · I0[...] · I1[...] (constant factors, negation and division by a constant fold
            // into alpha)
  elementwise,  // fn(I0[...]) or I0[...] op I1[...]
};

struct binding;

/// One row of the iterator mapping table with everything needed to match it.
struct operator_def {
  op_kind kind;
  body_kind body;
  std::vector<std::string> roles;  // input operand names, in order ("A", "B")
  std::vector<column> columns;
  /// The canonical expression with the given sizes of the operator's iterators (missing sizes
  /// take small defaults); it must match this operator.
  ir::scope_ptr (*canonical)(const std::map<std::string, std::int64_t>& size);
  /// Step 3: attributes from the flattened coefficients, or nothing when they do not fit.
  std::optional<instance> (*infer)(const binding&);
  /// Runs an instance of the operator on flat buffers the way its library call would (a
  /// reference for tests): `a`, `b` (null for one input) and `out` start at each operand's
  /// origin, offsets applied.
  void (*execute)(const instance& op, const double* a, const double* b, double* out);
};

/// The result of steps 1–2 for one tensor mapping: operands in the operator's order, and the
/// scope's iterators sorted into the operator's columns.
struct binding {
  const ir::scope* source = nullptr;
  const operator_def* op = nullptr;
  loops iters;
  std::vector<view> in;  // the operator's input order
  view out;
  std::vector<std::vector<std::string>> columns;  // scope iterators per column, in scope order
  double alpha = 1;
  std::string fn;  // elementwise body function

  /// The scope iterators of the column holding operator iterator `name`.
  const std::vector<std::string>& column_of(const std::string& name) const {
    for (std::size_t c = 0; c < op->columns.size(); ++c)
      for (auto& n : op->columns[c].iterators)
        if (n == name) return columns[c];
    throw internal_error("operator " + std::string(match::name(op->kind)) + " has no iterator " +
                         name);
  }
  ir::dtype type() const { return in.empty() ? ir::dtype::f32 : in[0].type; }
};

/// A product body: its access factors (in order) and the constant factor.
struct product_form {
  std::vector<const ir::access*> factors;
  double alpha = 1;
};

inline bool collect_factors(const ir::expr& e, product_form& p) {
  if (auto* a = std::get_if<ir::access>(e.get())) {
    p.factors.push_back(a);
    return true;
  }
  if (auto* c = std::get_if<ir::constant>(e.get())) {
    p.alpha *= c->value;
    return true;
  }
  if (auto* u = std::get_if<ir::unary>(e.get())) {
    if (u->fn != ir::unary_fn::neg) return false;
    p.alpha = -p.alpha;
    return collect_factors(u->arg, p);
  }
  auto& b = std::get<ir::binary>(*e);
  if (b.op == ir::binary_op::mul) return collect_factors(b.lhs, p) && collect_factors(b.rhs, p);
  if (b.op == ir::binary_op::div) {
    auto* c = std::get_if<ir::constant>(b.rhs.get());
    if (!c || c->value == 0) return false;
    p.alpha /= c->value;
    return collect_factors(b.lhs, p);
  }
  return false;
}

inline std::optional<product_form> as_product(const ir::expr& e) {
  product_form p;
  if (!collect_factors(e, p)) return std::nullopt;
  return p;
}

/// An elementwise body: one function applied to accesses only.
struct elementwise_form {
  std::string fn;
  std::vector<const ir::access*> operands;
};

inline std::optional<elementwise_form> as_elementwise(const ir::expr& e) {
  if (auto* u = std::get_if<ir::unary>(e.get())) {
    if (auto* a = std::get_if<ir::access>(u->arg.get()))
      return elementwise_form{ir::name(u->fn), {a}};
    return std::nullopt;
  }
  if (auto* b = std::get_if<ir::binary>(e.get())) {
    auto* l = std::get_if<ir::access>(b->lhs.get());
    auto* r = std::get_if<ir::access>(b->rhs.get());
    // max and min have no library operator: they run as eOperators
    if (!l || !r || !ir::is_infix(b->op)) return std::nullopt;
    constexpr const char* names[] = {"add", "sub", "mul", "div"};
    return elementwise_form{names[static_cast<int>(b->op)], {l, r}};
  }
  return std::nullopt;
}

/// Every iterator the scope declares reaches this match only through known names.
inline bool iterators_declared(const ir::scope& s, const std::vector<const ir::access*>& acc) {
  std::set<std::string> declared, used;
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list) declared.insert(i.name);
  for (auto* a : acc)
    for (auto& e : a->index) e.collect_iterators(used);
  return std::includes(declared.begin(), declared.end(), used.begin(), used.end());
}

/// Step 2 for one tensor mapping: sorts every iterator of the scope into the column with its
/// signature (the inputs it indexes, whether it is in the output). Nothing when an iterator fits
/// no column or a required column stays empty.
inline std::optional<binding> classify(const ir::scope& s, const operator_def& op,
                                       std::vector<view> in, view out, const loops& it) {
  binding b;
  b.source = &s;
  b.op = &op;
  b.iters = it;
  b.columns.resize(op.columns.size());
  auto place = [&](const ir::iterator& i) {
    if (i.extent() <= 1) return true;
    unsigned mask = 0;
    for (std::size_t t = 0; t < in.size(); ++t)
      if (in[t].uses(i.name)) mask |= 1u << t;
    bool in_out = out.uses(i.name);
    for (std::size_t c = 0; c < op.columns.size(); ++c)
      if (op.columns[c].inputs == mask && op.columns[c].out == in_out) {
        b.columns[c].push_back(i.name);
        return true;
      }
    return false;
  };
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list)
      if (!place(i)) return std::nullopt;
  for (std::size_t c = 0; c < op.columns.size(); ++c)
    if (op.columns[c].required && b.columns[c].empty()) return std::nullopt;
  b.in = std::move(in);
  b.out = std::move(out);
  return b;
}

/// What every operator's matching starts from, computed once per scope: the normalized
/// iterators, the output's view, and the body's accesses in product and elementwise form.
struct scope_analysis {
  struct form {
    std::vector<view> views;  // the accesses, in body order
    double alpha = 1;
    std::string fn;
  };
  loops iters;
  view out;
  std::optional<form> product, elementwise;
};

inline scope_analysis analyze(const ir::scope& s) {
  scope_analysis a;
  // Every library operator is a sum (with 0 padding): a max or min scope has no form to match,
  // so it matches nothing and is no operator's distance away (docs/decisions/0008).
  if (!s.body || s.reduce != ir::reduction::sum) return a;
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& i : *list)
      if (i.extent() < 1) return a;  // an empty box: nothing to compute
  auto norm = normalizer(s);
  a.iters = scope_loops(s);
  a.out = output_view(s, norm);
  auto make =
      [&](const std::vector<const ir::access*>& acc) -> std::optional<scope_analysis::form> {
    if (!iterators_declared(s, acc)) return std::nullopt;
    scope_analysis::form f;
    for (auto* x : acc) f.views.push_back(access_view(*x, norm));
    for (auto& v : f.views)
      if (v.type != f.views[0].type) return std::nullopt;
    return f;
  };
  if (auto p = as_product(s.body)) {
    a.product = make(p->factors);
    if (a.product) a.product->alpha = p->alpha;
  }
  if (auto e = as_elementwise(s.body)) {
    a.elementwise = make(e->operands);
    if (a.elementwise) a.elementwise->fn = e->fn;
  }
  return a;
}

/// Steps 1–2: every binding of scope `s` (analyzed as `a`) to operator `op`, one per tensor
/// mapping that classifies (inputs permuted for a product, in body order for an elementwise
/// function).
inline std::vector<binding> bindings(const ir::scope& s, const scope_analysis& a,
                                     const operator_def& op) {
  std::vector<binding> result;
  auto& f = op.body == body_kind::product ? a.product : a.elementwise;
  if (!f || f->views.size() != op.roles.size()) return result;
  std::vector<std::size_t> perm(f->views.size());
  for (std::size_t t = 0; t < perm.size(); ++t) perm[t] = t;
  do {
    std::vector<view> in;
    for (auto t : perm) in.push_back(f->views[t]);
    if (auto b = classify(s, op, std::move(in), a.out, a.iters)) {
      b->alpha = f->alpha;
      b->fn = f->fn;
      result.push_back(std::move(*b));
    }
  } while (op.body == body_kind::product && std::next_permutation(perm.begin(), perm.end()));
  return result;
}

inline std::vector<binding> bindings(const ir::scope& s, const operator_def& op) {
  return bindings(s, analyze(s), op);
}

/// Fills in an instance's operands from a binding: roles, sources, sizes and origins.
inline void bind_operands(instance& r, const binding& b, const std::vector<std::int64_t>& offsets) {
  for (std::size_t t = 0; t < b.in.size(); ++t) {
    operand o = b.in[t].bound;
    o.role = b.op->roles[t];
    o.offset = offsets[t];
    r.inputs.push_back(std::move(o));
  }
  r.output = b.out.bound;
  r.output.role = "O";
  r.output.offset = 0;
  r.type = b.type();
}

}  // namespace ein::match
