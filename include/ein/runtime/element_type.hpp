// The element types a plan's buffers hold, as the runtime names them: what bindings carry and
// what library calls are set up with (runtime/ includes nothing of the IR; ir::dtype lists the
// same types in the same order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ein/half.hpp"

namespace ein::runtime {

/// Element types a bound buffer may hold (the runtime's mirror of ir::dtype, in its order).
enum class element_type : std::uint8_t { f32, f64, f16, bf16 };
inline const char* name(element_type t) {
  switch (t) {
    case element_type::f32: return "float";
    case element_type::f64: return "double";
    case element_type::f16: return "ein::half";
    case element_type::bf16: return "ein::bfloat16";
  }
  return "unknown";
}
/// Bytes of one element; ir::element_bytes is the same for each type (codegen/library/common.hpp
/// checks it), written again only because the runtime includes nothing of the IR.
constexpr std::size_t element_bytes(element_type t) {
  return t == element_type::f64 ? sizeof(double) : t == element_type::f32 ? sizeof(float) : sizeof(std::uint16_t);
}

template <class T>
concept element = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, ein::half> ||
                  std::is_same_v<T, ein::bfloat16>;

template <element T>
inline constexpr element_type element_type_of = std::is_same_v<T, float>       ? element_type::f32
                                                : std::is_same_v<T, double>    ? element_type::f64
                                                : std::is_same_v<T, ein::half> ? element_type::f16
                                                                               : element_type::bf16;

}  // namespace ein::runtime
