// The 16-bit floating-point element types: ein::half (IEEE 754 binary16) and ein::bfloat16
// (float's upper 16 bits). Each stores its bits as std::uint16_t and converts to and from float,
// rounding to nearest, ties to even; arithmetic happens in float (docs/decisions/0028). Plain
// C++ without library dependencies, so that models, generated host code, generated CUDA kernels
// and the interpreter share it (GCC 12 has no std::float16_t or std::bfloat16_t). In device code
// the conversions are the GPU's own instructions (cvt), which round the same way.
#pragma once

#include <cstdint>

#if !defined(EIN_HOST_DEVICE)
#if defined(__CUDACC__)
#define EIN_HOST_DEVICE __host__ __device__
#else
#define EIN_HOST_DEVICE
#endif
#endif

namespace ein {

namespace detail {

/// The binary16 nearest to `f` (ties to even): ±inf past the largest finite value (65504), a
/// quiet NaN keeping the payload's upper bits for a NaN, subnormals below 2^-14.
EIN_HOST_DEVICE constexpr std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated()) {
    std::uint16_t h = 0;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
  }
#endif
  const std::uint32_t x = __builtin_bit_cast(std::uint32_t, f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // from 65520 (a tie to even) on
  if (abs >= 0x38800000u) {  // normal: rebias the exponent, round the 13 bits dropped
    abs += 0xfffu + ((abs >> 13) & 1u);
    return static_cast<std::uint16_t>(sign | ((abs - (112u << 23)) >> 13));
  }
  // Subnormal: the multiple of 2^-24 nearest to (mantissa with its leading 1) · 2^(exponent - 150).
  const int shift = 126 - static_cast<int>(abs >> 23);
  if (shift > 24) return sign;  // below 2^-25: rounds to zero
  const std::uint32_t m = (abs & 0x7fffffu) | 0x800000u, rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1);
  std::uint32_t q = m >> shift;
  if (rest > tie || (rest == tie && (q & 1u))) ++q;
  return static_cast<std::uint16_t>(sign | q);
}

/// The float equal to binary16 `h` (every binary16 value is a float).
EIN_HOST_DEVICE constexpr float half_bits_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  if (!__builtin_is_constant_evaluated()) {
    float f = 0.0f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
#endif
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return __builtin_bit_cast(float, sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return __builtin_bit_cast(float, sign | ((exponent + 112u) << 23) | (mantissa << 13));
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // subnormal (or zero): exact
  return sign ? -magnitude : magnitude;
}

/// The bfloat16 nearest to `f` (ties to even; overflow gives ±inf), a quiet NaN for a NaN.
EIN_HOST_DEVICE constexpr std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (!__builtin_is_constant_evaluated()) {
    std::uint16_t b = 0;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return b;
  }
#endif
  std::uint32_t x = __builtin_bit_cast(std::uint32_t, f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

EIN_HOST_DEVICE constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return __builtin_bit_cast(float, static_cast<std::uint32_t>(b) << 16);
}

}  // namespace detail

/// IEEE 754 binary16: 1 sign bit, 5 exponent bits, 10 mantissa bits (largest finite 65504,
/// epsilon 2^-10). Converts to float implicitly and exactly; from float explicitly, rounding.
struct half {
  std::uint16_t bits = 0;

  half() = default;
  EIN_HOST_DEVICE constexpr explicit half(float f) : bits(detail::float_to_half_bits(f)) {}
  EIN_HOST_DEVICE constexpr operator float() const { return detail::half_bits_to_float(bits); }
  EIN_HOST_DEVICE static constexpr half from_bits(std::uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
};

/// bfloat16: float's sign, 8 exponent bits and its upper 7 mantissa bits (float's range,
/// epsilon 2^-7). Converts to float implicitly and exactly; from float explicitly, rounding.
struct bfloat16 {
  std::uint16_t bits = 0;

  bfloat16() = default;
  EIN_HOST_DEVICE constexpr explicit bfloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}
  EIN_HOST_DEVICE constexpr operator float() const { return detail::bfloat16_bits_to_float(bits); }
  EIN_HOST_DEVICE static constexpr bfloat16 from_bits(std::uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

}  // namespace ein
