// ein::half and ein::bfloat16: every bit pattern converts to float and back unchanged, floats
// between two neighbours round to the nearer (ties to the even one), and the edges (overflow,
// subnormals, NaN) behave as IEEE 754 says.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ein/half.hpp"

namespace half_test {

namespace {

template <class H>
bool is_nan_bits(std::uint16_t b) {
  const std::uint16_t exponent = std::is_same_v<H, ein::half> ? 0x7c00 : 0x7f80;
  return (b & exponent) == exponent && (b & ~(exponent | 0x8000)) != 0;
}

// Every pattern that is not NaN converts to float and back to itself; NaNs stay NaN.
template <class H>
void check_round_trips() {
  int checked = 0;
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float f = H::from_bits(bits);
    if (is_nan_bits<H>(bits)) {
      CHECK(std::isnan(f));
      CHECK(is_nan_bits<H>(H(f).bits));
      continue;
    }
    CHECK(!std::isnan(f));
    if (H(f).bits != bits) FAIL_CHECK("bits " << b << " read as " << f << " come back as " << H(f).bits);
    ++checked;
  }
  CHECK(checked == (std::is_same_v<H, ein::half> ? 65536 - 2 * 1023 : 65536 - 2 * 127));
}

// Between each pair of neighbouring finite values a < b (positive and negative), the midpoint (a
// float: one bit more than either) rounds to the one whose last bit is 0, and the floats just
// beside it to the nearer one.
template <class H>
void check_rounding_between_neighbours() {
  const std::uint16_t largest = std::is_same_v<H, ein::half> ? 0x7bff : 0x7f7f;
  for (std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}})
    for (std::uint16_t b = 0; b < largest; ++b) {
      const auto lo = static_cast<std::uint16_t>(sign | b), hi = static_cast<std::uint16_t>(sign | (b + 1));
      const float a = H::from_bits(lo), c = H::from_bits(hi);
      const float mid = a + (c - a) / 2;  // exact: a float has the bits
      const std::uint16_t even = (b & 1) == 0 ? lo : hi;
      if (H(mid).bits != even) FAIL_CHECK("the midpoint " << mid << " of patterns " << lo << " and " << hi << " rounds to " << H(mid).bits);
      CHECK(H(std::nextafter(mid, a)).bits == lo);
      CHECK(H(std::nextafter(mid, c)).bits == hi);
    }
}

}  // namespace

TEST_CASE("every 16-bit pattern but NaN converts to float and back unchanged") {
  check_round_trips<ein::half>();
  check_round_trips<ein::bfloat16>();
}

TEST_CASE("floats between two 16-bit neighbours round to the nearer, ties to even") {
  check_rounding_between_neighbours<ein::half>();
  check_rounding_between_neighbours<ein::bfloat16>();
}

TEST_CASE("half: known values, overflow to infinity, subnormals") {
  static_assert(ein::half(1.0f).bits == 0x3c00);  // the conversions are constant expressions
  static_assert(float(ein::half::from_bits(0xc000)) == -2.0f);
  CHECK(ein::half(65504.0f).bits == 0x7bff);
  CHECK(ein::half(65519.99f).bits == 0x7bff);
  CHECK(ein::half(65520.0f).bits == 0x7c00);  // the tie between 65504 and 2^16 goes to the even: inf
  CHECK(ein::half(-1e10f).bits == 0xfc00);
  CHECK(ein::half(std::numeric_limits<float>::infinity()).bits == 0x7c00);
  CHECK(std::isinf(float(ein::half::from_bits(0xfc00))));
  CHECK(ein::half(1.0f + 0x1p-11f).bits == 0x3c00);      // tie: down to the even 1
  CHECK(ein::half(1.0f + 3 * 0x1p-11f).bits == 0x3c02);  // tie: up to the even 1 + 2^-9
  CHECK(ein::half(0x1p-24f).bits == 0x0001);             // the smallest subnormal
  CHECK(ein::half(0x1p-25f).bits == 0x0000);             // its half: a tie, to the even 0
  CHECK(ein::half(0x1.000002p-25f).bits == 0x0001);
  CHECK(ein::half(3 * 0x1p-25f).bits == 0x0002);         // tie between 1 and 2 · 2^-24: 2
  CHECK(ein::half(-0x1p-14f).bits == 0x8400);            // the smallest normal
  CHECK(ein::half(0x1p-14f - 0x1p-25f).bits == 0x0400);  // a subnormal tie rounding up into it
  CHECK(ein::half(0x1p-140f).bits == 0x0000);
  CHECK(ein::half(-0.0f).bits == 0x8000);
  CHECK(float(ein::half::from_bits(0x03ff)) == 1023 * 0x1p-24f);
}

TEST_CASE("bfloat16: known values, overflow to infinity") {
  static_assert(ein::bfloat16(1.0f).bits == 0x3f80);
  CHECK(ein::bfloat16(3.0f).bits == 0x4040);
  CHECK(ein::bfloat16(1.0f + 0x1p-8f).bits == 0x3f80);  // tie: down to the even 1
  CHECK(ein::bfloat16(1.0f + 3 * 0x1p-8f).bits == 0x3f82);
  CHECK(ein::bfloat16(std::numeric_limits<float>::max()).bits == 0x7f80);
  CHECK(ein::bfloat16(-std::numeric_limits<float>::max()).bits == 0xff80);
  CHECK(ein::bfloat16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(ein::bfloat16(0x1p-133f).bits == 0x0001);  // bfloat16's smallest subnormal
  CHECK(std::isnan(float(ein::bfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace half_test
