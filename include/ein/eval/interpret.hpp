// The reference interpreter: evaluates any scope or program in double precision (rounding what a
// 16-bit definition stores to its type). It is the oracle every rule, match and generated
// program is checked against, so it stays plain.
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/half.hpp"
#include "ein/ir/expr.hpp"

namespace ein::eval {

/// A dense row-major tensor over the box [lower, lower + shape).
struct dense {
  std::vector<std::int64_t> lower, shape;
  std::vector<double> data;

  dense() = default;
  explicit dense(std::vector<std::int64_t> shape_, std::vector<std::int64_t> lower_ = {})
      : lower(lower_.empty() ? std::vector<std::int64_t>(shape_.size(), 0) : std::move(lower_)),
        shape(std::move(shape_)),
        data(static_cast<std::size_t>(count(shape)), 0.0) {}

  static std::int64_t count(const std::vector<std::int64_t>& s) {
    std::int64_t n = 1;
    for (auto e : s) n *= e;
    return n;
  }
  std::size_t rank() const { return shape.size(); }
  /// Element at box coordinates; 0 outside the box (the IR's padding rule).
  double at(const std::vector<std::int64_t>& coord) const {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::int64_t i = coord[d] - lower[d];
      if (i < 0 || i >= shape[d]) return 0.0;
      off = off * shape[d] + i;
    }
    return data[static_cast<std::size_t>(off)];
  }
};

/// Values of named tensors (inputs, weights, definitions) by name.
using bindings = std::map<std::string, dense>;

namespace detail {

// An index compiled against iterator slots: c0 + Σ c·slot + Σ c·(arg / d or arg % d).
struct compiled_index {
  struct nonlinear {
    bool is_mod;
    std::int64_t divisor, coeff;
    std::vector<compiled_index> arg;  // exactly one element
  };
  std::int64_t constant = 0;
  std::vector<std::pair<int, std::int64_t>> linear;
  std::vector<nonlinear> rest;

  std::int64_t operator()(const std::int64_t* it) const {
    std::int64_t v = constant;
    for (auto& [s, c] : linear) v += c * it[s];
    for (auto& n : rest) {
      std::int64_t a = n.arg[0](it);
      v += n.coeff * (n.is_mod ? ir::floor_mod(a, n.divisor) : ir::floor_div(a, n.divisor));
    }
    return v;
  }
};

using slot_map = std::map<std::string, int>;

inline compiled_index compile_index(const ir::affine& a, const slot_map& slots) {
  compiled_index r;
  r.constant = a.constant();
  for (auto& [at, c] : a.terms()) {
    if (at.k == ir::atom::kind::iter) {
      auto it = slots.find(at.name);
      if (it == slots.end())
        throw user_error("index `" + a.str() + "` uses iterator `" + at.name +
                         "`, which is neither a traversal nor a summation iterator of its scope");
      r.linear.push_back({it->second, c});
    } else {
      r.rest.push_back({at.k == ir::atom::kind::mod, at.divisor, c,
                        {compile_index(*at.arg, slots)}});
    }
  }
  return r;
}

using compiled_expr = std::function<double(const std::int64_t*)>;

inline double apply(ir::unary_fn f, double x) {
  switch (f) {
    case ir::unary_fn::neg: return -x;
    case ir::unary_fn::relu: return x > 0 ? x : 0.0;
    case ir::unary_fn::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case ir::unary_fn::tanh: return std::tanh(x);
    case ir::unary_fn::exp: return std::exp(x);
    case ir::unary_fn::sqrt: return std::sqrt(x);
    case ir::unary_fn::step: return x > 0 ? 1.0 : 0.0;
  }
  throw internal_error("unknown unary function");
}

inline double apply(ir::binary_op op, double a, double b) {
  switch (op) {
    case ir::binary_op::add: return a + b;
    case ir::binary_op::sub: return a - b;
    case ir::binary_op::mul: return a * b;
    case ir::binary_op::div: return a / b;
    case ir::binary_op::max: return std::max(a, b);
    case ir::binary_op::min: return std::min(a, b);
  }
  throw internal_error("unknown binary operator");
}

}  // namespace detail

dense evaluate(const ir::scope& s, const bindings& env);

namespace detail {

// `outside` is set whenever an access reads outside its source's box, so that a max or min scope
// can leave that point out.
inline compiled_expr compile(const ir::expr& e, const slot_map& slots, const bindings& env,
                             std::vector<std::shared_ptr<dense>>& keep, bool* outside) {
  return std::visit(
      [&](const auto& n) -> compiled_expr {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return [v = n.value](const std::int64_t*) { return v; };
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          return [f = n.fn, a = compile(n.arg, slots, env, keep, outside)](const std::int64_t* it) {
            return apply(f, a(it));
          };
        } else if constexpr (std::is_same_v<T, ir::binary>) {
          return [op = n.op, l = compile(n.lhs, slots, env, keep, outside),
                  r = compile(n.rhs, slots, env, keep, outside)](const std::int64_t* it) {
            return apply(op, l(it), r(it));
          };
        } else {
          std::shared_ptr<dense> src;
          std::string what;
          if (auto* t = std::get_if<ir::tensor>(&n.source)) {
            auto b = env.find(t->name);
            if (b == env.end()) throw user_error("no value bound for tensor `" + t->name + "`");
            if (b->second.shape != t->shape)
              throw user_error("tensor `" + t->name + "` is bound to a value of another shape");
            src = std::make_shared<dense>(b->second);
            what = t->name;
          } else {
            src = std::make_shared<dense>(evaluate(*std::get<ir::scope_ptr>(n.source), env));
            what = "a nested scope";
          }
          if (n.index.size() != src->rank())
            throw user_error("access to " + what + " has " + std::to_string(n.index.size()) +
                             " indices but the tensor has rank " + std::to_string(src->rank()));
          keep.push_back(src);
          std::vector<compiled_index> idx;
          for (auto& a : n.index) idx.push_back(compile_index(a, slots));
          return [src = src.get(), idx = std::move(idx), outside](const std::int64_t* it) {
            std::int64_t off = 0;
            for (std::size_t d = 0; d < idx.size(); ++d) {
              std::int64_t i = idx[d](it) - src->lower[d];
              if (i < 0 || i >= src->shape[d]) {
                *outside = true;
                return 0.0;
              }
              off = off * src->shape[d] + i;
            }
            return src->data[static_cast<std::size_t>(off)];
          };
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

// Advance an odometer over box [lo, hi); false once it wraps around.
inline bool next(std::int64_t* it, const std::vector<ir::iterator>& box) {
  for (std::size_t d = box.size(); d-- > 0;) {
    if (++it[d] < box[d].hi) return true;
    it[d] = box[d].lo;
  }
  return false;
}

inline bool empty_box(const std::vector<ir::iterator>& box) {
  for (auto& i : box)
    if (i.hi <= i.lo) return true;
  return false;
}

}  // namespace detail

/// The value of a reduction over no point: 0 for a sum, -inf for a max, +inf for a min.
inline double empty_value(ir::reduction r) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return r == ir::reduction::sum ? 0.0 : r == ir::reduction::max ? -inf : inf;
}

/// Evaluates a scope: nested scopes first (each once), then every traversal point. A sum adds
/// the body over the summation box; a max or min combines it over the points whose body reads
/// no source outside its box (docs/decisions/0008), the empty value where there is none.
inline dense evaluate(const ir::scope& s, const bindings& env) {
  detail::slot_map slots;
  int k = 0;
  for (auto& i : s.traversal) {
    if (!slots.emplace(i.name, k++).second)
      throw user_error("iterator `" + i.name + "` is declared twice in one scope");
  }
  for (auto& i : s.summation) {
    if (!slots.emplace(i.name, k++).second)
      throw user_error("iterator `" + i.name + "` is declared twice in one scope");
  }
  std::vector<std::shared_ptr<dense>> keep;
  bool outside = false;
  auto body = detail::compile(s.body, slots, env, keep, &outside);
  auto combine = [&](double acc, double v) {
    switch (s.reduce) {
      case ir::reduction::sum: return acc + v;
      case ir::reduction::max: return outside ? acc : std::max(acc, v);
      case ir::reduction::min: return outside ? acc : std::min(acc, v);
    }
    throw internal_error("unknown reduction");
  };

  dense out(s.shape(), s.lower());
  if (detail::empty_box(s.traversal)) return out;
  std::vector<std::int64_t> it(slots.size());
  for (std::size_t d = 0; d < s.traversal.size(); ++d) it[d] = s.traversal[d].lo;
  std::int64_t* sum_it = it.data() + s.traversal.size();
  bool no_sum = detail::empty_box(s.summation);
  std::size_t flat = 0;
  do {
    double acc = empty_value(s.reduce);
    if (!no_sum) {
      for (std::size_t d = 0; d < s.summation.size(); ++d) sum_it[d] = s.summation[d].lo;
      do {
        outside = false;
        double v = body(it.data());
        acc = combine(acc, v);
      } while (detail::next(sum_it, s.summation));
    }
    out.data[flat++] = acc;
  } while (detail::next(it.data(), s.traversal));
  return out;
}

/// `v` as a tensor of type `t` holds it: rounded to the nearest ein::half or ein::bfloat16
/// through float (as a plan rounds the float it computed), unchanged for float and double.
inline double stored_value(double v, ir::dtype t) {
  switch (t) {
    case ir::dtype::f16: return static_cast<float>(ein::half(static_cast<float>(v)));
    case ir::dtype::bf16: return static_cast<float>(ein::bfloat16(static_cast<float>(v)));
    case ir::dtype::f32:
    case ir::dtype::f64: return v;
  }
  throw internal_error("unknown element type");
}

/// Rounds every element of `d` to what a tensor of type `t` holds (stored_value).
inline void round_to(dense& d, ir::dtype t) {
  if (!ir::is_16bit(t)) return;
  for (auto& x : d.data) x = stored_value(x, t);
}

/// Evaluates every definition of a program in order; returns inputs and definitions by name.
/// Inputs and weights of a 16-bit type are read as their buffers hold them, and the value of a
/// definition of a 16-bit type is rounded to it once, as a plan stores it
/// (docs/decisions/0028); the arithmetic stays in double.
inline bindings evaluate(const ir::program& p, bindings env) {
  for (auto& t : p.tensors) {
    auto it = env.find(t.name);
    if (it == env.end()) throw user_error("program `" + p.name + "`: no value for `" + t.name + "`");
    round_to(it->second, t.type);
  }
  for (auto& d : p.definitions) {
    dense v = evaluate(*d.value, env);
    round_to(v, d.type);
    env[d.name] = std::move(v);
  }
  return env;
}

}  // namespace ein::eval
