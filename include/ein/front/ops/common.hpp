// What the operators of ein::ops share: operand concept, layouts, per-axis attributes,
// transposition, iterator and definition names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "ein/front/def.hpp"

namespace ein::ops {

/// The type of an operand, whatever its value category.
template <class T>
using plain = std::remove_cvref_t<T>;

/// An operand of an operator: a tensor (input, weight) or a definition (another operator's
/// result), with a compile-time shape. Operators take operands by forwarding reference: a named
/// definition is read by address, a temporary by value (front/link.hpp).
template <class T>
concept operand = requires {
  plain<T>::name;
  plain<T>::rank;
  plain<T>::shape;
} && !front::expression<plain<T>>;

/// Data layout of a convolution: activations (n, h, w, c) with weights (r, s, f, c), or
/// activations (n, c, h, w) with weights (f, c, r, s).
enum class data_format : std::uint8_t { nhwc, nchw };
inline constexpr data_format nhwc = data_format::nhwc;
inline constexpr data_format nchw = data_format::nchw;

/// Filter layout of a convolution: rsfc (r, s, f, c), today's default with nhwc; kcrs (f, c, r, s),
/// PyTorch's and the default with nchw; rscf (r, s, c, f), TensorFlow's; krsc (f, r, s, c), a
/// PyTorch filter in channels-last memory and the layout cuDNN reads with NHWC data (on tensor
/// cores, in half and bfloat16, with no copy of the filter: docs/decisions/0028).
enum class filter : std::uint8_t { rsfc, kcrs, rscf, krsc };
inline constexpr filter rsfc = filter::rsfc;
inline constexpr filter kcrs = filter::kcrs;
inline constexpr filter rscf = filter::rscf;
inline constexpr filter krsc = filter::krsc;
/// The filter layout a convolution reads unless told: rsfc with nhwc, kcrs with nchw.
constexpr filter default_filter(data_format l) { return l == data_format::nhwc ? filter::rsfc : filter::kcrs; }

/// A stride, padding, dilation or window along h and w: one number for both axes (`2`), or one
/// each (`ops::hw{0, 5}` pads h by 0 and w by 5).
struct hw {
  std::int64_t h = 0, w = 0;
  constexpr hw(std::int64_t both) : h(both), w(both) {}  // NOLINT: `2` means 2 along both axes
  constexpr hw(std::int64_t along_h, std::int64_t along_w) : h(along_h), w(along_w) {}
};

/// Which operands of a matrix product are stored transposed.
enum class transpose : std::uint8_t { none, a, b, ab };
inline constexpr transpose trans_a = transpose::a;
inline constexpr transpose trans_b = transpose::b;
inline constexpr transpose trans_ab = transpose::ab;

namespace detail {

/// The name "i<K>" of the K-th iterator of an operator of any rank (K < 10).
template <std::size_t K>
constexpr front::fixed_string<3> dim_name() {
  static_assert(K < 10, "ein::ops: elementwise operators support ranks up to 10");
  front::fixed_string<3> s;
  s.chars[0] = 'i';
  s.chars[1] = static_cast<char>('0' + K);
  return s;
}
template <std::size_t K>
using dim = front::var<dim_name<K>()>;

/// An operand `x` of type X for one more read: x itself when X is an lvalue (a named definition,
/// read by address), else a copy (a temporary, which each read keeps by value). A local
/// definition of an operator is read as `reread<decltype(d)>(d)`, by value.
template <class X, class T>
constexpr decltype(auto) reread(T& x) {
  if constexpr (std::is_lvalue_reference_v<X>)
    return (x);
  else
    return plain<X>(x);
}

/// A weight tensor (not an input, not a definition): what may be transformed once, at prepare time.
template <class T>
constexpr bool is_weight() {
  if constexpr (requires { T::role; })
    return T::role == ir::tensor_role::weight;
  else
    return false;
}

template <class X, class Y>
constexpr bool same_shape() {
  if constexpr (X::rank != Y::rank)
    return false;
  else
    return X::shape == Y::shape;
}

}  // namespace detail
}  // namespace ein::ops
