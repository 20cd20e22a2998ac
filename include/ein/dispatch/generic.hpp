// The generic path of ein::run: the reference interpreter on bound host buffers, used when no
// generated plan was included. Unoptimized (it computes in double), but always available.
#pragma once

#include <string>
#include <vector>

#include "ein/eval/interpret.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/bindings.hpp"

namespace ein::runtime {

namespace detail {

// element_type lists the dtypes in their order.
inline element_type element_of(ir::dtype t) { return static_cast<element_type>(t); }

// The bytes of a dense tensor of `shape`.
inline std::size_t bytes(ir::dtype t, const std::vector<std::int64_t>& shape) {
  auto n = static_cast<std::size_t>(ir::element_bytes(t));
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

template <element T>
void copy_out(const eval::dense& v, void* to) {
  auto* p = static_cast<T*>(to);
  for (std::size_t i = 0; i < v.data.size(); ++i) p[i] = static_cast<T>(v.data[i]);
}

template <element T>
void copy_in(const void* from, eval::dense& v) {
  auto* p = static_cast<const T*>(from);
  for (std::size_t i = 0; i < v.data.size(); ++i) v.data[i] = static_cast<double>(p[i]);
}

// f(T{}) for the element type T of `t`.
template <class F>
void with_element(element_type t, F&& f) {
  switch (t) {
    case element_type::f32: return f(float{});
    case element_type::f64: return f(double{});
    case element_type::f16: return f(ein::half{});
    case element_type::bf16: return f(ein::bfloat16{});
  }
}

}  // namespace detail

/// Runs `prog` with the interpreter: reads every input and weight from `b` (host memory),
/// evaluates all definitions and writes every output, converting to and from double.
/// @pre every input, weight and output of `prog` is bound with its element type.
inline void run_generic(const ir::program& prog, const bindings& b) {
  std::vector<std::string> names;
  for (auto& t : prog.tensors) names.push_back(t.name);
  for (auto& o : prog.outputs) names.push_back(o);
  b.expect_only(names);

  eval::bindings env;
  std::vector<bindings::region> regions;  // every bound buffer, to check that outputs share none
  for (auto& t : prog.tensors) {
    auto& bound = b.checked(t.name, detail::element_of(t.type), t.shape, false);
    eval::dense v(t.shape);
    detail::with_element(bound.type, [&](auto e) { detail::copy_in<decltype(e)>(bound.data, v); });
    env[t.name] = std::move(v);
    regions.push_back({t.name, bound.data, detail::bytes(t.type, t.shape), false});
  }
  // Outputs are checked before the (possibly long) evaluation.
  std::vector<const binding*> outs;
  for (auto& o : prog.outputs) {
    const ir::definition* d = prog.find_definition(o);
    if (!d) throw user_error("program `" + prog.name + "`: output `" + o + "` is not defined");
    outs.push_back(&b.checked(o, detail::element_of(d->type), d->value->shape(), true));
    regions.push_back({o, outs.back()->data, detail::bytes(d->type, d->value->shape()), true});
  }
  b.expect_disjoint(regions);
  env = eval::evaluate(prog, std::move(env));
  for (std::size_t i = 0; i < prog.outputs.size(); ++i) {
    const eval::dense& v = env.at(prog.outputs[i]);
    void* to = const_cast<void*>(outs[i]->data);
    detail::with_element(outs[i]->type, [&](auto e) { detail::copy_out<decltype(e)>(v, to); });
  }
}

}  // namespace ein::runtime
