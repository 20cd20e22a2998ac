// Definitions: `def<"conv">(over(n, h, w, f), sum(r, s, c)(body))`, their ranges (explicit or
// inferred from bare accesses) and accesses to their values, `conv(n, h, w, f)`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "ein/front/hash.hpp"
#include "ein/front/link.hpp"
#include "ein/front/store.hpp"
#include "ein/front/tensor.hpp"

namespace ein::front {

/// The traversal iterators of a definition, in output-layout order: the result of over(...).
template <class... It>
struct traversal_list {};

template <class Sum, class Body>
struct sum_node;

/// The summation iterators of sum(...), max(...) or min(...), and how they reduce the body;
/// applied to a body it gives a sum_node.
template <ir::reduction Reduce, class... It>
struct reduction_list {
  static constexpr ir::reduction reduce = Reduce;
  /// `sum(r, s, c)(body)`: every summation iterator must appear in the body.
  template <class B>
  constexpr auto operator()(const B& body) const {
    if constexpr (!checks::summation_body<Reduce, B>() || !B::valid)
      return invalid{};
    else if constexpr (!checks::summation<Reduce, B, It...>())
      return invalid{};
    else
      return sum_node<reduction_list, B>{body};
  }
};
template <class... It>
using summation_list = reduction_list<ir::reduction::sum, It...>;

/// Σ (or max, min) over the summation iterators of Body; only the whole body of a definition
/// may be a reduction (a scope reduces its entire body), so this is deliberately not an
/// `expression`.
template <class Sum, class Body>
struct sum_node {
  using summation = Sum;
  Body body;
};

/// The traversal iterators of a definition: `over(n, h.in<0, 7>, w, f)`.
template <iterator_like... It>
constexpr auto over(It...) {
  if constexpr (!checks::traversal<It...>())
    return invalid{};
  else
    return traversal_list<It...>{};
}

/// The summation iterators of a sum: `sum(r, s, c)(A(...) * K(...))`.
template <iterator_like... It>
constexpr auto sum(It...) {
  if constexpr (!checks::summation_iterators<ir::reduction::sum, It...>())
    return invalid{};
  else
    return reduction_list<ir::reduction::sum, It...>{};
}

/// The iterators of a max reduction: `max(r, s)(A(n, h * 2 + r, w * 2 + s, c))` is the largest
/// body value over the points at which every access reads inside its box; an element with no
/// such point is -inf (docs/decisions/0008). Like sum, only the whole body of a definition.
template <iterator_like... It>
constexpr auto max(It...) {
  if constexpr (!checks::summation_iterators<ir::reduction::max, It...>())
    return invalid{};
  else
    return reduction_list<ir::reduction::max, It...>{};
}

/// The iterators of a min reduction: as max, the smallest value, +inf over no point.
template <iterator_like... It>
constexpr auto min(It...) {
  if constexpr (!checks::summation_iterators<ir::reduction::min, It...>())
    return invalid{};
  else
    return reduction_list<ir::reduction::min, It...>{};
}

template <class D, class Link, class... I>
struct definition_access;

namespace detail {
template <class... T>
constexpr std::array<std::int64_t, sizeof...(T)> upper_bounds(types<T...>) {
  return {T::hi...};
}
/// The element type of a definition reading X...: double when one is double, else float when one
/// is float or when it reads both 16-bit types (neither holds the other) or nothing; else the
/// one 16-bit type it reads.
template <class... X>
constexpr ir::dtype widest(types<X...>) {
  constexpr bool f64 = ((X::dtype == ir::dtype::f64) || ...), f32 = ((X::dtype == ir::dtype::f32) || ...);
  constexpr bool f16 = ((X::dtype == ir::dtype::f16) || ...), bf16 = ((X::dtype == ir::dtype::bf16) || ...);
  if (f64) return ir::dtype::f64;
  if (f32 || f16 == bf16) return ir::dtype::f32;
  return f16 ? ir::dtype::f16 : ir::dtype::bf16;
}
template <fixed_string Name, ir::dtype Type, class... It>
constexpr def_ref<Name, Type, It::hi...> ref_of(types<It...>) {
  return {};
}
}  // namespace detail

/// What one definition is on its own: name, resolved iterators, stored body (which reads other
/// definitions by def_ref), reduction. Iterators are resolved (`ranged`) types; traversal ranges
/// start at 0, so the value is a tensor over [0, shape). Element is the element type the
/// definition names (`def<"y", ein::half>`), void where it takes widest's.
// No partial specialization on the name: nvcc does not match those with class-type parameters.
template <fixed_string Name, class Traversal, class Summation, class Body, ir::reduction Reduce = ir::reduction::sum,
          class Element = void>
struct def_core {
  static constexpr auto name = Name;
  using traversal = Traversal;
  using summation = Summation;
  using body_type = Body;
  static constexpr ir::reduction reduce = Reduce;
  static constexpr std::size_t rank = Traversal::size;
  static constexpr std::array<std::int64_t, rank> shape = detail::upper_bounds(Traversal{});
  /// The tensors the body reads, first occurrences in body order.
  using tensors_read = detail::unique<typename Body::tensors>;
  /// The element type named, else the widest of what it reads (detail::widest).
  static constexpr ir::dtype dtype = [] {
    if constexpr (std::is_void_v<Element>)
      return detail::widest(detail::concat<detail::unique<typename Body::defs>, tensors_read>{});
    else
      return detail::dtype_of<Element>;
  }();
  using ref = decltype(detail::ref_of<Name, dtype>(Traversal{}));
};

/// A named definition `L_{traversal} Σ_{summation} body` as a value: its record (the stored body
/// as tokens, record.hpp) and a link to each definition it reads (link.hpp), in body order, one
/// per type. Id hashes Core and the ids of those definitions, so that the type of a program's
/// outputs tells programs apart although links to named definitions do not carry their types.
template <class Core, std::uint64_t Id, class... Links>
struct def_node : def_base {
  using core = Core;
  static constexpr std::uint64_t id = Id;
  static constexpr auto name = Core::name;
  static constexpr bool valid = true;
  static constexpr bool is_definition = true;
  static constexpr std::size_t rank = Core::rank;
  static constexpr std::array<std::int64_t, rank> shape = Core::shape;
  static constexpr ir::dtype dtype = Core::dtype;

  std::array<token, record_size<Core>> tokens;
  std::tuple<Links...> links;

  /// `conv(n, h, w, f)`: an access to this definition's value, one index per traversal
  /// iterator. A named definition is read by address: it must have static storage (an
  /// `inline constexpr` variable, or a `static constexpr` one in a function).
  template <index_operand... I>
  constexpr auto operator()(I... i) const& {
    return access<address_link>(address_link{this}, i...);
  }
  /// The same on a temporary (`ops::matmul<"m">(x, W)(i, j)`), which the access keeps a copy of.
  template <index_operand... I>
  constexpr auto operator()(I... i) && {
    return access<value_link<def_node>>(value_link<def_node>{static_cast<def_node&&>(*this)}, i...);
  }

 private:
  template <class Link, class... I>
  static constexpr auto access(Link link, I... i) {
    if constexpr (!(detail::index_t<I>::valid && ...) || !checks::access_rank<def_node, sizeof...(I)>())
      return invalid{};
    else
      return definition_access<def_node, Link, detail::index_t<I>...>{{}, link, {detail::to_index(i)...}};
  }
};

/// `d(index...)` for a definition d in a user's expression: a link to d (by address or by
/// value) and the indices. def() stores the expression as a definition_read and keeps the link.
template <class D, class Link, class... I>
struct definition_access : leaf_traits {
  static constexpr node_kind kind = node_kind::definition_access;
  using source = D;
  using link_type = Link;
  using read_type = definition_read<typename D::core::ref, I...>;
  using vars = detail::concat<typename I::vars...>;
  using bare = typename detail::bare_uses<D, std::index_sequence_for<I...>, I...>::type;
  using defs = detail::types<definition_access>;
  Link link;
  std::tuple<I...> index;
};

namespace detail {

/// The resolved iterator of It in Body: its explicit range, or [0, inferred extent).
template <class It, class Body>
struct resolve {
  static constexpr std::int64_t lo = [] {
    if constexpr (It::has_range)
      return It::lo;
    else
      return std::int64_t{0};
  }();
  using type = ranged<typename It::var_type, lo, lo + range_hint<It, Body>().extent>;
};

template <class T>
inline constexpr bool is_traversal = false;
template <class... It>
inline constexpr bool is_traversal<traversal_list<It...>> = true;
template <class T>
inline constexpr bool is_sum = false;
template <class S, class B>
inline constexpr bool is_sum<sum_node<S, B>> = true;

template <class A>
using source_of = typename A::source;

/// The definitions a body reads (Accesses: its definition_access types in body order), one per
/// type, and the link each keeps: that of its first access.
template <class Accesses>
struct links_of;
template <class... A>
struct links_of<types<A...>> {
  using defs = unique<types<source_of<A>...>>;
  template <class D>
  struct reads {
    template <class X>
    struct pred : std::bool_constant<std::is_same_v<source_of<X>, D>> {};
  };
  template <class D>
  using link = typename find_if<reads<D>::template pred, types<A...>>::link_type;
};

/// The def_node of a definition of type Core whose body, as written, is a Body that reads the
/// definitions D... with Links. core_id hashes Core (the key of a body with every constant 0: the
/// same for every body whose stored type is Core's), id hashes that and the ids of D....
template <class Core, class Body, class Defs, class Links>
struct node_of;
template <class Core, class Body, class... D, class Links>
struct node_of<Core, Body, types<D...>, Links> {
  static constexpr std::uint64_t core_id = definition_key(record<Core>(Body{}));
  static constexpr std::uint64_t id = [] {
    fnv1a h;
    h.u64(core_id);
    (h.u64(D::id), ...);
    return h.state;
  }();
  using type = def_node<Core, id, typename Links::template link<D>...>;
};

/// Puts the link of each access into the slot of its definition, the first access of each
/// definition filling it; two values of one definition type must agree (types cannot tell apart
/// definitions that differ only in constants, keys can).
template <class Defs, class Node>
struct link_filler {
  Node& node;
  bool filled[Defs::size + 1] = {};

  template <class A>
  constexpr void operator()(const A& access) {
    constexpr std::size_t k = index_of<source_of<A>, Defs>::value;
    auto& slot = std::get<k>(node.links);
    if (filled[k]) {
      if (slot.get()->key != access.link.get()->key)
        checks::two_different_definitions_have_the_same_name(source_of<A>::name.view());
    } else if constexpr (std::is_same_v<std::remove_cvref_t<decltype(slot)>, typename A::link_type>) {
      filled[k] = true;
      slot = access.link;
    }
  }
};

template <class Core, class Body>
constexpr auto store_definition(const Body& body) {
  using links = links_of<typename Body::defs>;
  using of = node_of<Core, Body, typename links::defs, links>;
  using node = typename of::type;
  node d{};
  d.core_id = of::core_id;
  d.tokens = front::record<Core>(body);
  d.key = definition_key(d.tokens);
  d.record = &record_of<node>;
  d.dependencies = &dependencies_of<node>;
  for_each_definition(body, link_filler<typename links::defs, node>{d});
  return d;
}

template <fixed_string Name, class Element, class... T, ir::reduction Reduce, class... S, class Body>
constexpr auto make_def(traversal_list<T...>, reduction_list<Reduce, S...>, const Body& body) {
  if constexpr (!Body::valid)
    return invalid{};
  else if constexpr (!checks::definition<Name, Body>(types<T...>{}, types<S...>{}))
    return invalid{};
  else
    return store_definition<def_core<Name, types<typename resolve<T, Body>::type...>,
                                     types<typename resolve<S, Body>::type...>, stored_t<Body>, Reduce, Element>>(
        body);
}

}  // namespace detail

/// A named definition: `def<"conv">(over(n, h.in<0, 7>, w.in<0, 7>, f), sum(r, s, c)(body))`,
/// or a max or min reduction: `def<"pool">(over(n, h, w, c), max(r, s)(body))`.
/// Every iterator of the body must be declared in over(...) or sum(...); an iterator without
/// `.in<lo, hi>` takes the extent of the dimensions it indexes alone (they must agree).
/// The value's element type is the widest the body reads (double, float, then the one 16-bit
/// type read, float for both) unless named: `def<"y", ein::half>(...)` stores the value as half.
template <fixed_string Name, class Element = void, class O, class B>
constexpr auto def(O traversal, const B& body) {
  if constexpr (std::is_same_v<O, invalid> || std::is_same_v<B, invalid>) {
    return invalid{};
  } else if constexpr (!checks::definition_element_type<Element>()) {
    return invalid{};
  } else if constexpr (!detail::is_traversal<O>) {
    checks::definition_traversal<O>();
    return invalid{};
  } else if constexpr (detail::is_sum<B>) {
    return detail::make_def<Name, Element>(traversal, typename B::summation{}, body.body);
  } else if constexpr (expression<B>) {
    return detail::make_def<Name, Element>(traversal, summation_list<>{}, body);
  } else if constexpr (std::is_arithmetic_v<B>) {
    return detail::make_def<Name, Element>(traversal, summation_list<>{}, detail::to_node(body));
  } else {
    checks::definition_body<B>();
    return invalid{};
  }
}

}  // namespace ein::front
