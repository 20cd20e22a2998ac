// reify: turns a front-end program into the runtime IR (ein::ir::program) that the interpreter,
// the derivation rules and the search work on. No algebra happens here: the IR is the program
// as written, indices put in canonical quasi-affine form.
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ein/front/key.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front {

namespace detail {

template <class I>
ir::affine reify_index(const I& i) {
  if constexpr (I::form == index_form::iterator)
    return ir::affine::iter(std::string(I::name.view()));
  else if constexpr (I::form == index_form::constant)
    return ir::affine(i.value);
  else if constexpr (I::form == index_form::sum)
    return reify_index(i.lhs) + reify_index(i.rhs);
  else if constexpr (I::form == index_form::difference)
    return reify_index(i.lhs) - reify_index(i.rhs);
  else if constexpr (I::form == index_form::scaled)
    return reify_index(i.arg) * i.factor;
  else if constexpr (I::form == index_form::quotient)
    return reify_index(i.arg).floordiv(i.factor);
  else
    return reify_index(i.arg).mod(i.factor);
}

template <class... I>
std::vector<ir::affine> reify_indices(const std::tuple<I...>& index) {
  return std::apply([](const I&... i) { return std::vector<ir::affine>{reify_index(i)...}; }, index);
}

template <class S>
ir::tensor reify_tensor(ir::tensor_role role) {
  return {std::string(S::name.view()), S::dtype, {S::shape.begin(), S::shape.end()}, role};
}

template <class B>
ir::expr reify_body(const B& b) {
  if constexpr (B::kind == node_kind::constant) {
    return ir::make_constant(b.value);
  } else if constexpr (B::kind == node_kind::tensor_access) {
    using t = typename B::source;
    return ir::make_access(reify_tensor<t>(t::role), reify_indices(b.index));
  } else if constexpr (B::kind == node_kind::definition_read) {
    return ir::make_access(reify_tensor<typename B::source>(ir::tensor_role::definition),
                           reify_indices(b.index));
  } else if constexpr (B::kind == node_kind::unary) {
    return ir::make_unary(B::fn, reify_body(b.arg));
  } else {
    return ir::make_binary(B::op, reify_body(b.lhs), reify_body(b.rhs));
  }
}

template <class... It>
std::vector<ir::iterator> reify_iterators(types<It...>) {
  return {ir::iterator{std::string(It::var_type::name.view()), It::lo, It::hi}...};
}

template <class... T>
std::vector<ir::tensor> reify_tensors(types<T...>) {
  return {reify_tensor<T>(T::role)...};
}

template <class D>
ir::definition reify_definition(const typename D::body_type& body) {
  return {std::string(D::name.view()),
          ir::make_scope(reify_iterators(typename D::traversal{}),
                         reify_iterators(typename D::summation{}), reify_body(body)),
          D::dtype};
}

template <class P, class... D>
std::vector<ir::definition> reify_definitions(const P& prog, types<D...>) {
  return {reify_definition<D>(stored_body<D>(prog.bodies))...};
}

template <class... D>
std::vector<std::string> reify_outputs(types<D...>) {
  return {std::string(D::name.view())...};
}

}  // namespace detail

/// The IR of a program: its inputs and weights (in order of first use), every definition it
/// depends on in topological order (each a scope; accesses to definitions name a tensor with
/// role `definition`), and its outputs.
///
///     ir::program p = ein::reify(conv3x3::net, "conv3x3");
template <program_like P>
ir::program reify(const P& prog, std::string name = "") {
  ir::program out;
  out.name = std::move(name);
  if constexpr (!std::is_same_v<P, invalid>) {
    out.tensors = detail::reify_tensors(typename P::tensors{});
    out.definitions = detail::reify_definitions(prog, typename P::defs{});
    out.outputs = detail::reify_outputs(typename P::outputs{});
  }
  return out;
}

}  // namespace ein::front
