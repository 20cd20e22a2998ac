// Programs: `program(out, ...)` lists the outputs and collects, at compile time, every
// definition they depend on (in topological order) and every tensor they read.
#pragma once

#include <tuple>

#include "ein/front/def.hpp"

namespace ein::front {

namespace detail {

template <class Defs>
struct tensors_of;
template <class... D>
struct tensors_of<types<D...>> {
  using type = unique<concat<typename D::tensors_read...>>;
};

template <class T>
struct not_definition : std::bool_constant<!requires { requires T::is_definition; }> {};

}  // namespace detail

/// A program: at compile time its `outputs`, `defs` (the def_core of every definition reached
/// from the outputs, dependencies first, in depth-first post-order) and `tensors` (inputs and weights, in order of first use); as a value the
/// stored body of each definition, once each.
template <class... D>
struct program_node {
  using outputs = detail::types<D...>;
  using defs = detail::closure_of<D...>;
  using tensors = typename detail::tensors_of<defs>::type;
  detail::closure_store<defs> bodies;
};

/// What program_key and reify accept: a program, or `invalid` after a reported error.
template <class P>
concept program_like = std::is_same_v<P, invalid> || requires(const P& p) {
  typename P::defs;
  typename P::tensors;
  p.bodies;
};

/// `program(out1, out2, ...)`: the listed definitions are the outputs; what they read is collected
/// transitively. Two different definitions, or two different tensors, may not share a name.
template <class... D>
constexpr auto program(const D&... outputs) {
  using not_definition = detail::find_if<detail::not_definition, detail::types<D...>>;
  if constexpr ((std::is_same_v<D, invalid> || ...)) {
    return invalid{};
  } else if constexpr (!std::is_void_v<not_definition>) {
    checks::program_output<not_definition>();
    return invalid{};
  } else {
    using p = program_node<D...>;
    if constexpr (!checks::program<typename p::defs, typename p::tensors, D...>()) {
      return invalid{};
    } else {
      detail::store_builder<typename p::defs> bodies;
      (bodies.add(outputs), ...);
      return p{bodies.out()};
    }
  }
}

}  // namespace ein::front
