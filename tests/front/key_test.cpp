// program_key: equal for the same program wherever it is declared, different after any change.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "ein/front.hpp"
#include "front/models.hpp"
#include "front/network_model.hpp"

namespace key_test {

#define EIN_CONV_MODEL(NS, NAME, C, PAD, OP, FN, SHIFT, ROLE, TYPE)                             \
  namespace NS {                                                                               \
  using namespace ein;                                                                         \
  inline constexpr var<"n"> n;                                                                 \
  inline constexpr var<"h"> h;                                                                 \
  inline constexpr var<"w"> w;                                                                 \
  inline constexpr var<"f"> f;                                                                 \
  inline constexpr var<"r"> r;                                                                 \
  inline constexpr var<"s"> s;                                                                 \
  inline constexpr var<"c"> c;                                                                 \
  inline constexpr ROLE<"A", TYPE, 1, 7, 7, C> A;                                              \
  inline constexpr weight<"K", float, 3, 3, 8, C> K;                                           \
  inline constexpr auto conv = def<NAME>(over(n, h.in<0, 7>, w.in<0, 7>, f),                   \
                                         sum(r, s, c)(A(n, h + r - PAD, w + s - 1, c) OP K(r, s, f, c))); \
  inline constexpr auto out = def<"out">(over(n, h, w, f), FN(conv(n, h, w, f) * SHIFT));     \
  inline constexpr auto net = program(out);                                                    \
  }

EIN_CONV_MODEL(base, "conv", 16, 1, *, relu, 1.0, input, float)
EIN_CONV_MODEL(base_again, "conv", 16, 1, *, relu, 1.0, input, float)
EIN_CONV_MODEL(other_shape, "conv", 32, 1, *, relu, 1.0, input, float)
EIN_CONV_MODEL(other_name, "conv2", 16, 1, *, relu, 1.0, input, float)
EIN_CONV_MODEL(other_coefficient, "conv", 16, 2, *, relu, 1.0, input, float)
EIN_CONV_MODEL(other_op, "conv", 16, 1, +, relu, 1.0, input, float)
EIN_CONV_MODEL(other_function, "conv", 16, 1, *, sigmoid, 1.0, input, float)
EIN_CONV_MODEL(other_constant, "conv", 16, 1, *, relu, 2.0, input, float)
EIN_CONV_MODEL(other_role, "conv", 16, 1, *, relu, 1.0, weight, float)
EIN_CONV_MODEL(other_dtype, "conv", 16, 1, *, relu, 1.0, input, double)
EIN_CONV_MODEL(other_half, "conv", 16, 1, *, relu, 1.0, input, ein::half)
EIN_CONV_MODEL(other_bfloat16, "conv", 16, 1, *, relu, 1.0, input, ein::bfloat16)

// The key is a compile-time constant: a generated header can check it with static_assert.
static_assert(ein::program_key(base::net) == ein::program_key(base_again::net));
static_assert(ein::program_key(base::net) != ein::program_key(other_shape::net));
static_assert(ein::program_key(base::net) != ein::program_key(other_coefficient::net));

// The same values as nvcc computes (nvcc_front.cu): the key does not depend on the compiler.
static_assert(ein::program_key(conv3x3::net) == conv3x3_key);
static_assert(ein::program_key(operators::net) == operators_key);
static_assert(ein::program_key(shallow::net) == shallow_key);
static_assert(ein::program_key(network::net) == network_key);

namespace ranges {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"X", float, 8> X;
inline constexpr auto a = program(def<"y">(over(i.in<0, 6>), X(i)));
inline constexpr auto b = program(def<"y">(over(i.in<0, 7>), X(i)));
inline constexpr auto c = program(def<"y">(over(i), X(i)));
inline constexpr auto c_again = program(def<"y">(over(i), X(i)));
inline constexpr auto c_spelled_out = program(def<"y">(over(i.in<0, 8>), X(i)));  // the range c infers
inline constexpr auto c_half = program(def<"y", ein::half>(over(i), X(i)));
inline constexpr auto d = program(def<"y">(over(i.in<0, 8>), X(i / 2) * 1.0));
inline constexpr auto e = program(def<"y">(over(i.in<0, 8>), X(i % 2) * 1.0));
inline constexpr auto y1 = def<"y1">(over(i), X(i));
inline constexpr auto y2 = def<"y2">(over(i), X(i) + y1(i));
inline constexpr auto both = program(y1, y2);
inline constexpr auto one = program(y2);
}  // namespace ranges

TEST_CASE("program_key: the same program declared twice has one key") {
  CHECK(ein::program_key(base::net) == ein::program_key(base_again::net));
  CHECK(ein::program_key(ranges::c) == ein::program_key(ranges::c_again));
  // Written another way, the same program: the key is of the program, not of how it is spelled.
  CHECK(ein::program_key(ranges::c) == ein::program_key(ranges::c_spelled_out));
}

TEST_CASE("program_key: any change of shape, name, coefficient, op, constant, role, element type, range, output changes it") {
  std::vector<std::uint64_t> keys = {
      ein::program_key(base::net),           ein::program_key(other_shape::net),
      ein::program_key(other_name::net),     ein::program_key(other_coefficient::net),
      ein::program_key(other_op::net),       ein::program_key(other_function::net),
      ein::program_key(other_constant::net), ein::program_key(other_role::net),
      ein::program_key(other_dtype::net),    ein::program_key(other_half::net),
      ein::program_key(other_bfloat16::net), ein::program_key(ranges::c_half),
      ein::program_key(ranges::a),
      ein::program_key(ranges::b),           ein::program_key(ranges::c),
      ein::program_key(ranges::d),           ein::program_key(ranges::e),
      ein::program_key(ranges::both),        ein::program_key(ranges::one)};
  CHECK(std::set<std::uint64_t>(keys.begin(), keys.end()).size() == keys.size());
}

TEST_CASE("program_key: computed at run time equals the compile-time value") {
  constexpr std::uint64_t at_compile_time = ein::program_key(base::net);
  auto net = base::net;
  CHECK(ein::program_key(net) == at_compile_time);
}

}  // namespace key_test
