// What generated eOperators call on host and device: qualifiers, floor division, unary functions,
// and the memory of host plans.
#pragma once

#include <math.h>  // the global ::exp/::tanh that both the host and nvcc's device side provide

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#if defined(__CUDACC__)
#define EIN_HOST_DEVICE __host__ __device__
#define EIN_RESTRICT __restrict__
#else
#define EIN_HOST_DEVICE
#define EIN_RESTRICT __restrict
#endif

namespace ein::runtime {

/// floor(a / d) and a mod d in [0, d) for d > 0: the IR's rounding towards negative infinity,
/// which C++'s `/` and `%` only give for a >= 0 (generated code uses them only then).
EIN_HOST_DEVICE inline constexpr std::int64_t floor_div(std::int64_t a, std::int64_t d) {
  std::int64_t q = a / d;
  return (a % d != 0 && a < 0) ? q - 1 : q;
}
EIN_HOST_DEVICE inline constexpr std::int64_t floor_mod(std::int64_t a, std::int64_t d) {
  return a - floor_div(a, d) * d;
}

/// The unary functions of ir::unary_fn (EIN_FOR_EACH_UNARY_FN), one per name, in double.
namespace fn {
EIN_HOST_DEVICE inline double neg(double x) { return -x; }
EIN_HOST_DEVICE inline double relu(double x) { return x > 0 ? x : 0.0; }
EIN_HOST_DEVICE inline double sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }
EIN_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }
EIN_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
EIN_HOST_DEVICE inline double sqrt(double x) { return ::sqrt(x); }
/// The binary max and min (ir::binary_op), and the value of a max or min over no point.
EIN_HOST_DEVICE inline double max(double a, double b) { return a > b ? a : b; }
EIN_HOST_DEVICE inline double min(double a, double b) { return a < b ? a : b; }
#if defined(__CUDACC_RTC__)  // NVRTC knows neither HUGE_VAL nor __builtin_huge_val
EIN_HOST_DEVICE inline double infinity() { return __longlong_as_double(0x7ff0000000000000LL); }
#else
EIN_HOST_DEVICE inline double infinity() { return __builtin_huge_val(); }
#endif
}  // namespace fn

/// A temporary of a host plan (a definition that is no output, or a materialized nested scope).
template <class T>
using host_buffer = std::vector<T>;

/// The storage of a prepared host plan (its weights and transformed weights, at offsets the
/// generated code aligns): `bytes` of host memory aligned for any element type, or null for 0.
inline constexpr std::size_t host_storage_alignment = 64;
inline void* allocate_host_storage(std::size_t bytes) {
  return bytes ? ::operator new(bytes, std::align_val_t{host_storage_alignment}) : nullptr;
}
inline void free_host_storage(void* p) noexcept {
  if (p) ::operator delete(p, std::align_val_t{host_storage_alignment});
}

}  // namespace ein::runtime
