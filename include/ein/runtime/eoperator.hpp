// What generated eOperators call on host and device: qualifiers, floor division, unary, max and
// min functions and infinity in float and double, and the memory of host plans.
#pragma once

#include <math.h>  // the global ::exp/::tanh, ::expf/::tanhf that the host and nvcc's device side provide

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#if defined(__CUDACC__)
#define EIN_HOST_DEVICE __host__ __device__
#define EIN_RESTRICT __restrict__
#else
#define EIN_HOST_DEVICE
#define EIN_RESTRICT __restrict
#endif

// A loop the compiler should unroll completely (a sum over a small constant extent).
#if defined(__CUDACC__) || defined(__clang__)
#define EIN_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define EIN_UNROLL _Pragma("GCC unroll 16")
#else
#define EIN_UNROLL
#endif

// The outer loops of a host eOperator shared among the threads of an OpenMP team where the build
// compiles with OpenMP (-fopenmp), one loop after another otherwise. Each call starts its own
// team and writes only its own output, so calls from several threads at once stay correct.
// EIN_PARALLEL_FOR_CHUNK deals the iterations out `chunk` at a time (a tuned schedule's chunk).
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define EIN_PRAGMA(text) _Pragma(#text)
#define EIN_PARALLEL_FOR(loops) EIN_PRAGMA(omp parallel for collapse(loops) schedule(static))
#define EIN_PARALLEL_FOR_CHUNK(loops, chunk) EIN_PRAGMA(omp parallel for collapse(loops) schedule(static, chunk))
#else
#define EIN_PARALLEL_FOR(loops)
#define EIN_PARALLEL_FOR_CHUNK(loops, chunk)
#endif

#include "ein/half.hpp"  // the 16-bit element types eOperators load and store

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

/// Blocks of a kernel launch: enough for `items` at `per_block` each pass, at most `resident`
/// (the blocks the device runs at once; the kernels loop over the rest), at least 1.
/// Example: launch_blocks(10000, 1024, 1056) == 10; launch_blocks(1 << 24, 1024, 1056) == 1056.
constexpr unsigned launch_blocks(std::int64_t items, std::int64_t per_block, unsigned resident) {
  std::int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > resident ? resident : blocks);
}

/// `N` consecutive elements that one thread of a kernel loads or stores together.
template <class T, int N>
struct alignas(sizeof(T) * N) lanes {
  T v[N];
  EIN_HOST_DEVICE T operator[](int i) const { return v[i]; }
};

/// p[0, N): one vector load where `p` is aligned to the whole group, element by element otherwise
/// (generated kernels load lanes only at offsets that are multiples of N, so the choice is the
/// same for every thread: it follows the alignment of the buffer).
template <int N, class T>
EIN_HOST_DEVICE inline lanes<T, N> load_lanes(const T* p) {
  lanes<T, N> r;
  if (reinterpret_cast<std::uintptr_t>(p) % sizeof(r) == 0) {
#if defined(__CUDA_ARCH__)
    return *reinterpret_cast<const lanes<T, N>*>(p);
#else
    std::memcpy(&r, p, sizeof(r));
    return r;
#endif
  }
  EIN_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = p[i];
  return r;
}

/// Stores `v` at p[0, N), as load_lanes loads.
template <int N, class T>
EIN_HOST_DEVICE inline void store_lanes(T* p, const lanes<T, N>& v) {
  if (reinterpret_cast<std::uintptr_t>(p) % sizeof(v) == 0) {
#if defined(__CUDA_ARCH__)
    *reinterpret_cast<lanes<T, N>*>(p) = v;
#else
    std::memcpy(p, &v, sizeof(v));
#endif
    return;
  }
  EIN_UNROLL
  for (int i = 0; i < N; ++i) p[i] = v.v[i];
}

/// The unary functions of ir::unary_fn (EIN_FOR_EACH_UNARY_FN), one per name, then the binary
/// max and min and infinity, in double and in float (a float eOperator stays in float: no double
/// instruction in its kernel).
namespace fn {
EIN_HOST_DEVICE inline double neg(double x) { return -x; }
EIN_HOST_DEVICE inline double relu(double x) { return x > 0 ? x : 0.0; }
EIN_HOST_DEVICE inline double sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }
EIN_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }
EIN_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
EIN_HOST_DEVICE inline double sqrt(double x) { return ::sqrt(x); }
EIN_HOST_DEVICE inline double step(double x) { return x > 0 ? 1.0 : 0.0; }
EIN_HOST_DEVICE inline float neg(float x) { return -x; }
EIN_HOST_DEVICE inline float relu(float x) { return x > 0 ? x : 0.0f; }
EIN_HOST_DEVICE inline float sigmoid(float x) { return 1.0f / (1.0f + ::expf(-x)); }
EIN_HOST_DEVICE inline float tanh(float x) { return ::tanhf(x); }
EIN_HOST_DEVICE inline float exp(float x) { return ::expf(x); }
EIN_HOST_DEVICE inline float sqrt(float x) { return ::sqrtf(x); }
EIN_HOST_DEVICE inline float step(float x) { return x > 0 ? 1.0f : 0.0f; }
/// The binary max and min (ir::binary_op), in double and in float.
EIN_HOST_DEVICE inline double max(double a, double b) { return a > b ? a : b; }
EIN_HOST_DEVICE inline double min(double a, double b) { return a < b ? a : b; }
EIN_HOST_DEVICE inline float max(float a, float b) { return a > b ? a : b; }
EIN_HOST_DEVICE inline float min(float a, float b) { return a < b ? a : b; }
/// +inf in T (float or double): a min over no point (a max over none is its negation).
template <class T>
EIN_HOST_DEVICE inline T infinity() {
#if defined(__CUDACC_RTC__)  // NVRTC knows neither HUGE_VAL nor __builtin_huge_val
  if constexpr (sizeof(T) == sizeof(float)) return __int_as_float(0x7f800000);
  else return __longlong_as_double(0x7ff0000000000000LL);
#else
  if constexpr (sizeof(T) == sizeof(float)) return __builtin_huge_valf();
  else return __builtin_huge_val();
#endif
}
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
