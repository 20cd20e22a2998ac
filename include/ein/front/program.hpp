// Programs: `program(out, ...)` lists the outputs; the definitions they read, transitively, are
// reached through their links (link.hpp) and checked as a whole (graph.hpp).
#pragma once

#include <array>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ein/front/def.hpp"
#include "ein/front/graph.hpp"

namespace ein::front {

/// An output of a program: the definition D, by address or by value (Link, as in link.hpp).
template <class D, class Link>
struct output_slot {
  Link link;
};

/// A program: its outputs, each a definition (by address when it is a named definition, by
/// value when it is a temporary). Its type names the outputs' types, which hash everything they
/// depend on (def_node's Id), so two programs have two types.
template <class... Slot>
struct program_node {
  static constexpr bool is_program = true;
  std::tuple<Slot...> slots;

  /// The output definitions, in the order given to program(...).
  constexpr std::array<const def_base*, sizeof...(Slot)> outputs() const {
    return std::apply([](const Slot&... s) { return std::array<const def_base*, sizeof...(Slot)>{s.link.get()...}; },
                      slots);
  }
};

/// What program_key and reify accept: a program, or `invalid` after a reported error.
template <class P>
concept program_like = std::is_same_v<P, invalid> || requires(const P& p) {
  requires P::is_program;
  p.outputs();
};

namespace detail {

template <class T>
struct not_definition : std::bool_constant<!requires { requires T::is_definition; }> {};

/// A named definition is kept by address, a temporary by value.
template <class D>
constexpr auto output_of(D&& d) {
  using node = std::remove_cvref_t<D>;
  if constexpr (std::is_lvalue_reference_v<D>)
    return output_slot<node, address_link>{address_link{&d}};
  else
    return output_slot<node, value_link<node>>{value_link<node>{static_cast<node&&>(d)}};
}

}  // namespace detail

/// `program(out1, out2, ...)`: the listed definitions are the outputs; what they read is collected
/// transitively. Two different definitions, or two different tensors, may not share a name.
/// Outputs that are named definitions must have static storage, as for every read (def_node).
template <class... D>
constexpr auto program(D&&... outputs) {
  using not_definition = detail::find_if<detail::not_definition, detail::types<std::remove_cvref_t<D>...>>;
  if constexpr ((std::is_same_v<std::remove_cvref_t<D>, invalid> || ...)) {
    return invalid{};
  } else if constexpr (!std::is_void_v<not_definition>) {
    checks::program_output<not_definition>();
    return invalid{};
  } else if constexpr (!checks::program_outputs_distinct<std::remove_cvref_t<D>...>()) {
    return invalid{};
  } else {
    program_node<decltype(detail::output_of(std::forward<D>(outputs)))...> p{
        {detail::output_of(std::forward<D>(outputs))...}};
    auto out = p.outputs();
    detail::check_names(detail::topological_order(out));
    return p;
  }
}

}  // namespace ein::front
