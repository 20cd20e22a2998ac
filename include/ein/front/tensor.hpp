// Tensors a program reads (`input<"A", float, 1, 7, 7, 512>`, `weight<...>`) and accesses to them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "ein/front/body.hpp"
#include "ein/front/index.hpp"
#include "ein/half.hpp"

namespace ein::front {

namespace detail {

/// The IR's element type of the C++ element type T (checks::tensor_type admits these four).
template <class T>
inline constexpr ir::dtype dtype_of = std::is_same_v<T, double>           ? ir::dtype::f64
                                      : std::is_same_v<T, ein::half>     ? ir::dtype::f16
                                      : std::is_same_v<T, ein::bfloat16> ? ir::dtype::bf16
                                                                         : ir::dtype::f32;

/// The bare uses `S(.., v, ..)` of an access to a source S with index types I.
template <class S, class Seq, class... I>
struct bare_uses;
template <class S, std::size_t... K, class... I>
struct bare_uses<S, std::index_sequence<K...>, I...> {
  using type = concat<std::conditional_t<I::form == index_form::iterator,
                                         types<bare_use<I, S::shape[K]>>, types<>>...>;
};

}  // namespace detail

/// `source(index...)`: an access to a tensor (Source is a tensor_decl) or to a definition's
/// value (def.hpp). Indices are held by value.
template <class Source, class... I>
struct tensor_access : leaf_traits {
  static constexpr node_kind kind = node_kind::tensor_access;
  using source = Source;
  using vars = detail::concat<typename I::vars...>;
  using bare = typename detail::bare_uses<Source, std::index_sequence_for<I...>, I...>::type;
  using tensors = detail::types<Source>;
  std::tuple<I...> index;
};

/// A tensor the program reads, box [0, Dims...). Use it through `input` and `weight`.
template <ir::tensor_role Role, fixed_string Name, class T, std::int64_t... Dims>
struct tensor_decl {
  static constexpr bool valid = checks::tensor_type<T, Dims...>();
  static constexpr auto name = Name;
  static constexpr ir::tensor_role role = Role;
  static constexpr ir::dtype dtype = detail::dtype_of<T>;
  static constexpr std::size_t rank = sizeof...(Dims);
  static constexpr std::array<std::int64_t, rank> shape{Dims...};
  using element_type = T;

  /// `A(n, h + r - 1, w + s - 1, c)`: one index per dimension; reads outside the box are 0.
  template <index_operand... I>
  constexpr auto operator()(I... i) const {
    if constexpr (!valid || !(detail::index_t<I>::valid && ...) ||
                  !checks::access_rank<tensor_decl, sizeof...(I)>())
      return invalid{};
    else
      return tensor_access<tensor_decl, detail::index_t<I>...>{{}, {detail::to_index(i)...}};
  }
};

/// A program input: `inline constexpr input<"A", float, 1, 7, 7, 512> A;`.
template <fixed_string Name, class T, std::int64_t... Dims>
using input = tensor_decl<ir::tensor_role::input, Name, T, Dims...>;

/// A weight, known before run time (the optimizer may precompute expressions of weights only).
template <fixed_string Name, class T, std::int64_t... Dims>
using weight = tensor_decl<ir::tensor_role::weight, Name, T, Dims...>;

}  // namespace ein::front
