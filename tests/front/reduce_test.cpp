// Max and min reductions and binary max and min written in the front end: what reify makes of
// them, their values against hand-written loops, and their keys.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "front/check.hpp"

namespace reduce_test {

namespace {

using namespace ein;
using namespace front_test;

inline constexpr var<"i"> i;
inline constexpr var<"j"> j;
inline constexpr var<"k"> k;

template <std::int64_t I, std::int64_t J, std::int64_t Shift>
void window_case() {
  static constexpr input<"A", float, I, J> a;
  static constexpr input<"B", float, I, J> b;
  // Over k in [0, 3): the points reading a outside its box are left out (decision 0008).
  static constexpr auto hi = def<"hi">(over(i, j.in<0, J>), max(k.in<0, 3>)(a(i, j + k - Shift) * 2.0 + 1.0));
  static constexpr auto lo = def<"lo">(over(i, j.in<0, J>), min(k.in<0, 3>)(a(i, j + k - Shift)));
  static constexpr auto both = def<"both">(over(i, j), max(a(i, j), b(i, j)) - min(a(i, j), 0.25));
  auto window = [](bool take_max) {
    return [take_max](eval::bindings& env) {
      eval::dense y(shape{I, J});
      for (std::int64_t x = 0; x < I; ++x)
        for (std::int64_t z = 0; z < J; ++z) {
          double acc = take_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
          for (std::int64_t t = 0; t < 3; ++t) {
            std::int64_t at = z + t - Shift;
            if (at < 0 || at >= J) continue;
            double v = get(env["A"], {x, at});
            acc = take_max ? std::max(acc, v * 2.0 + 1.0) : std::min(acc, v);
          }
          add_at(y, {x, z}, acc);
        }
      return y;
    };
  };
  check(program(hi), "hi", window(true));
  check(program(lo), "lo", window(false));
  check(program(both), "both", [](eval::bindings& env) {
    eval::dense y(shape{I, J});
    for (std::size_t e = 0; e < y.data.size(); ++e)
      y.data[e] = std::max(env["A"].data[e], env["B"].data[e]) - std::min(env["A"].data[e], 0.25);
    return y;
  });
}

TEST_CASE("max and min reductions and binary max and min equal the loops") {
  window_case<2, 5, 1>();
  window_case<3, 4, 0>();
  window_case<1, 7, 2>();
}

TEST_CASE("reify keeps the reduction of a scope and writes binary max and min as nodes") {
  static constexpr input<"A", float, 3, 4> a;
  auto p = reify(program(def<"m">(over(i), max(j)(a(i, j))), def<"n">(over(i), min(j)(a(i, j))),
                         def<"s">(over(i), sum(j)(a(i, j))), def<"b">(over(i, j), max(a(i, j), 0.0))),
                 "t");
  REQUIRE(p.definitions.size() == 4);
  CHECK(p.definitions[0].value->reduce == ir::reduction::max);
  CHECK(p.definitions[1].value->reduce == ir::reduction::min);
  CHECK(p.definitions[2].value->reduce == ir::reduction::sum);
  auto* node = std::get_if<ir::binary>(p.definitions[3].value->body.get());
  REQUIRE(node);
  CHECK(node->op == ir::binary_op::max);
}

TEST_CASE("a max, a min and a sum over the same body have different program keys") {
  static constexpr input<"A", float, 3, 4> a;
  constexpr auto kmax = program_key(program(def<"r">(over(i), max(j)(a(i, j)))));
  constexpr auto kmin = program_key(program(def<"r">(over(i), min(j)(a(i, j)))));
  constexpr auto ksum = program_key(program(def<"r">(over(i), sum(j)(a(i, j)))));
  CHECK(kmax != kmin);
  CHECK(kmax != ksum);
  CHECK(kmin != ksum);
  constexpr auto bmax = program_key(program(def<"r">(over(i, j), max(a(i, j), 0.0))));
  constexpr auto bmin = program_key(program(def<"r">(over(i, j), min(a(i, j), 0.0))));
  CHECK(bmax != bmin);
}

}  // namespace

}  // namespace reduce_test
