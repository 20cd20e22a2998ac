// Every compile-time check of the front end and its message. Each check names the user's call,
// and returns false so that the caller stops (`if constexpr`) instead of cascading into more
// errors; where a check knows the culprit (an iterator, a tensor) it reports through a function
// template whose arguments name it, so the compiler's "in instantiation of" line shows it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ein/error.hpp"
#include "ein/front/traits.hpp"
#include "ein/half.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front::checks {

using detail::always_false;
using detail::types;

// ---- tensors and accesses ----

template <class T, std::int64_t... Dims>
constexpr bool tensor_type() {
  constexpr bool element = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, ein::half> ||
                          std::is_same_v<T, ein::bfloat16>;
  static_assert(element, "ein::input<name, T, dims...> / ein::weight<...>: the element type T must be float, double, "
                         "ein::half or ein::bfloat16");
  constexpr bool positive = ((Dims > 0) && ...);
  static_assert(positive, "ein::input<name, T, dims...> / ein::weight<...>: every dimension must be positive");
  return element && positive;
}

/// The element type a definition names: `def<"y", T>(...)`; void where it names none.
template <class T>
constexpr bool definition_element_type() {
  constexpr bool element = std::is_void_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, ein::half> || std::is_same_v<T, ein::bfloat16>;
  static_assert(element, "ein::def<name, T>: the element type T must be float, double, ein::half or ein::bfloat16");
  return element;
}

template <class Source, std::size_t Indices>
constexpr bool access_rank() {
  constexpr bool ok = Source::rank == Indices;
  static_assert(ok, "ein: access T(i...): wrong rank: give exactly one index per dimension of the tensor or definition");
  return ok;
}

// ---- index expressions ----

template <class T>
constexpr bool constant_index() {
  if constexpr (std::integral<T>)
    return true;
  else
    return T::form == index_form::constant;
}

template <class L, class R>
constexpr bool index_product() {
  constexpr bool ok = constant_index<L>() || constant_index<R>();
  static_assert(ok, "ein: index expression i * j: product of two iterators is not quasi-affine; one factor must be an integer constant");
  return ok;
}

template <class L, class R>
constexpr bool index_divisor() {
  constexpr bool ok = std::integral<R> && index_node<L>;
  static_assert(ok, "ein: index expression i / d or i % d: the divisor d must be an integer constant");
  return ok;
}

template <class L, class R>
constexpr bool iterator_as_value() {
  static_assert(always_false<L, R>, "ein: body expression: an iterator is not a value; use iterators only as indices of an access T(i...)");
  return false;
}

/// Reached only with a divisor <= 0. In a constant expression (every `constexpr` model) calling
/// this non-constexpr function is itself the compile error, and its name says why.
[[noreturn]] inline void index_divisor_must_be_a_positive_integer() {
  throw user_error("ein: index expression i / d or i % d: the divisor d must be a positive integer");
}
constexpr std::int64_t positive_divisor(std::int64_t d) {
  if (d <= 0) index_divisor_must_be_a_positive_integer();
  return d;
}

template <class It>
constexpr bool iterator_range() {
  if constexpr (It::has_range) {
    static_assert(It::lo < It::hi, "ein: v.in<lo, hi>: empty range: lo must be less than hi");
    return It::lo < It::hi;
  } else {
    return true;
  }
}

// ---- over(...) and sum(...) ----

template <class... V>
constexpr bool distinct() {
  constexpr std::size_t first[] = {detail::index_of<V, types<V...>>::value..., 0};
  for (std::size_t k = 0; k < sizeof...(V); ++k)
    if (first[k] != k) return false;
  return true;
}

template <class... It>
constexpr bool traversal() {
  constexpr bool ok = distinct<typename It::var_type...>();
  static_assert(ok, "ein::over(...): an iterator is listed twice");
  return ok && (iterator_range<It>() && ...);
}

// A reduction's messages name the user's call: sum, max or min.

template <ir::reduction R, class... It>
constexpr bool summation_iterators() {
  constexpr bool ok = distinct<typename It::var_type...>();
  if constexpr (R == ir::reduction::sum)
    static_assert(ok, "ein::sum(...): a summation iterator is listed twice");
  else if constexpr (R == ir::reduction::max)
    static_assert(ok, "ein::max(...): a reduction iterator is listed twice");
  else
    static_assert(ok, "ein::min(...): a reduction iterator is listed twice");
  return ok && (iterator_range<It>() && ...);
}

template <ir::reduction R, class Body, class... It>
constexpr bool summation() {
  constexpr bool used = (detail::contains<typename It::var_type, typename Body::vars> && ...);
  if constexpr (R == ir::reduction::sum)
    static_assert(used, "ein::sum(...)(body): every summation iterator must appear in the body");
  else if constexpr (R == ir::reduction::max)
    static_assert(used, "ein::max(...)(body): every reduction iterator must appear in the body");
  else
    static_assert(used, "ein::min(...)(body): every reduction iterator must appear in the body");
  return used;
}

template <ir::reduction R, class B>
constexpr bool summation_body() {
  if constexpr (R == ir::reduction::sum)
    static_assert(expression<B>, "ein::sum(...)(body): the body must be an expression (accesses, constants, + - * /, relu, ...)");
  else if constexpr (R == ir::reduction::max)
    static_assert(expression<B>, "ein::max(...)(body): the body must be an expression (accesses, constants, + - * /, relu, ...)");
  else
    static_assert(expression<B>, "ein::min(...)(body): the body must be an expression (accesses, constants, + - * /, relu, ...)");
  return expression<B>;
}

// ---- def<name>(over(...), body) ----

template <fixed_string Def, class Iterator>
constexpr bool unknown_iterator() {
  static_assert(always_false<Iterator>, "ein::def<name>(over(...), body): unknown iterator: every iterator used in the body must be declared in over(...) or sum(...)");
  return false;
}
template <fixed_string Def, class Iterator>
constexpr bool iterator_summed_and_traversed() {
  static_assert(always_false<Iterator>, "ein::def<name>(over(...), sum(...)(body)): a summation iterator must not also be a traversal iterator");
  return false;
}
template <fixed_string Def, class Iterator>
constexpr bool iterator_without_range() {
  static_assert(always_false<Iterator>, "ein::def<name>(...): an iterator has no range: no access indexes a dimension with it alone; give it one with .in<lo, hi>");
  return false;
}
template <fixed_string Def, class Iterator>
constexpr bool extents_disagree() {
  static_assert(always_false<Iterator>, "ein::def<name>(...): extents disagree: an iterator indexes dimensions of different extents; give it an explicit range with .in<lo, hi>");
  return false;
}
template <fixed_string Def, class Iterator>
constexpr bool traversal_not_from_zero() {
  static_assert(always_false<Iterator>, "ein::def<name>(over(...), body): traversal ranges must start at 0 (a definition's box is [0, shape)); shift the index instead");
  return false;
}

template <class L>
struct not_in {
  template <class T>
  struct pred : std::bool_constant<!detail::contains<T, L>> {};
};
template <class L>
struct var_in {
  template <class It>
  struct pred : std::bool_constant<detail::contains<typename It::var_type, L>> {};
};
template <class Body>
struct lacks_range {
  template <class It>
  struct pred : std::bool_constant<detail::range_hint<It, Body>().count == 0> {};
};
template <class Body>
struct extent_conflict {
  template <class It>
  struct pred : std::bool_constant<!detail::range_hint<It, Body>().agree> {};
};
template <class It>
constexpr bool lower_bound_nonzero() {
  if constexpr (It::has_range)
    return It::lo != 0;
  else
    return false;
}
template <class It>
struct starts_off_zero : std::bool_constant<lower_bound_nonzero<It>()> {};

template <fixed_string Def, class Body, class... T, class... S>
constexpr bool definition(types<T...>, types<S...>) {
  using declared = types<typename T::var_type..., typename S::var_type...>;
  using all = types<T..., S...>;
  using unknown = detail::find_if<not_in<declared>::template pred, typename Body::vars>;
  using both = detail::find_if<var_in<types<typename T::var_type...>>::template pred, types<S...>>;
  using conflict = detail::find_if<extent_conflict<Body>::template pred, all>;
  using rangeless = detail::find_if<lacks_range<Body>::template pred, all>;
  using off_zero = detail::find_if<starts_off_zero, types<T...>>;
  if constexpr (!std::is_void_v<unknown>) {
    return unknown_iterator<Def, unknown>();
  } else if constexpr (!std::is_void_v<both>) {
    return iterator_summed_and_traversed<Def, typename both::var_type>();
  } else if constexpr (!std::is_void_v<conflict>) {
    return extents_disagree<Def, typename conflict::var_type>();
  } else if constexpr (!std::is_void_v<rangeless>) {
    return iterator_without_range<Def, typename rangeless::var_type>();
  } else if constexpr (!std::is_void_v<off_zero>) {
    return traversal_not_from_zero<Def, typename off_zero::var_type>();
  } else {
    return true;
  }
}

template <class O>
constexpr bool definition_traversal() {
  static_assert(always_false<O>, "ein::def<name>(over(...), body): the first argument must be over(iterators...)");
  return false;
}

template <class B>
constexpr bool definition_body() {
  static_assert(always_false<B>, "ein::def<name>(over(...), body): the body must be an expression or sum(...)(expression)");
  return false;
}

// ---- program(...) ----

template <class D>
constexpr bool program_output() {
  static_assert(always_false<D>, "ein::program(outputs...): every output must be a definition made with ein::def<name>(...)");
  return false;
}

template <class... D>
constexpr bool program_outputs_distinct() {
  constexpr bool ok = distinct<D...>();
  static_assert(ok, "ein::program(outputs...): an output is listed twice");
  return ok;
}

// ---- the operator library (ein::ops) ----

template <fixed_string Op, bool Ok>
constexpr bool operand_ranks() {
  static_assert(Ok, "ein::ops: an operand has the wrong rank for this operator (see its layout in the operator's documentation)");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool operand_extents() {
  static_assert(Ok, "ein::ops: operand extents do not match (channels, inner dimensions, band width or shapes)");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool operator_attributes() {
  static_assert(Ok, "ein::ops: stride and dilation must be positive and padding non-negative");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool convolution_groups() {
  static_assert(Ok, "ein::ops: groups must be positive and divide the input's channels and the filters, and each filter must read the input's channels / groups channels");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool transposed_attributes() {
  static_assert(Ok, "ein::ops: a transposed convolution's stride must be positive, its padding non-negative and its output padding at least 0 and below the stride");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool pool_attributes() {
  static_assert(Ok, "ein::ops: pooling window and stride must be positive and padding at most half the window (no window may lie in the padding)");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool folded_operands() {
  static_assert(Ok, "ein::ops: the kernel and batch normalization parameters of a folded convolution must be weights (ein::weight), so that the fold runs once, in ein::prepare");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool reshape_size() {
  static_assert(Ok, "ein::ops: reshape must keep the number of elements");
  return Ok;
}
template <fixed_string Op, bool Ok>
constexpr bool output_extents() {
  static_assert(Ok, "ein::ops: the output would be empty (kernel larger than the padded input?)");
  return Ok;
}

// The checks of program(...) over the whole program (front/graph.hpp) read values, not types:
// in a constant expression (every `constexpr` model) calling one of these non-constexpr
// functions is the compile error, and its name says why; at run time it throws a user_error
// naming the culprit.

/// Two definitions of one name: of different types, or alike but for constants (which types
/// cannot see).
[[noreturn]] inline void two_different_definitions_have_the_same_name(std::string_view name) {
  throw user_error("ein::program(...): two different definitions have the same name `" + std::string(name) + "`");
}
/// Two tensors of one name that differ in shape, element type or role.
[[noreturn]] inline void two_tensors_have_the_same_name_but_different_shapes_element_types_or_roles(
    std::string_view name) {
  throw user_error("ein::program(...): two tensors have the same name `" + std::string(name) +
                   "` but different shapes, element types or roles");
}
/// A definition named as a tensor.
[[noreturn]] inline void a_definition_has_the_same_name_as_a_tensor(std::string_view name) {
  throw user_error("ein::program(...): a definition has the same name as a tensor: `" + std::string(name) + "`");
}

}  // namespace ein::front::checks
