// Canonical form of quasi-affine indices.
#include <doctest/doctest.h>

#include "ein/ir/affine.hpp"

namespace affine_test {

using namespace ein::ir;

TEST_CASE("affine: canonical sums compare equal") {
  auto h = affine::iter("h"), r = affine::iter("r");
  CHECK(h + r - 1 == r + h - 1);
  CHECK((h + r) * 2 == 2 * h + 2 * r);
  CHECK((h - h).is_constant());
  CHECK((h + r - 1).str() == "h + r - 1");
  CHECK((h + r - 1).coefficient("r") == 1);
}

TEST_CASE("affine: floor division and modulo simplify and print") {
  auto m = affine::iter("m");
  CHECK((4 * m + 8).floordiv(4) == m + 2);
  CHECK((4 * m + 8).mod(4) == affine(0));
  CHECK(affine(-7).floordiv(2) == affine(-4));
  CHECK(affine(-7).mod(2) == affine(1));
  CHECK(m.floordiv(7).str() == "m / 7");
  CHECK((m.floordiv(7) + 2 * m.mod(7)).str() == "(m / 7) + 2*(m % 7)");
  CHECK(m.floordiv(7) != m.mod(7));
  CHECK(m.floordiv(7).uses("m"));
}

TEST_CASE("affine: products need a constant factor") {
  auto a = affine::iter("a"), b = affine::iter("b");
  CHECK_THROWS_AS(a * b, ein::user_error);
  CHECK(a * affine(3) == 3 * a);
}

TEST_CASE("affine: substitution and evaluation") {
  auto h = affine::iter("h"), r = affine::iter("r");
  auto e = (h + r).mod(3) + 2 * h;
  auto s = e.substitute({{"h", affine::iter("t") - r}});
  CHECK(s == affine::iter("t").mod(3) + 2 * affine::iter("t") - 2 * r);
  CHECK(e.evaluate([](const std::string& n) { return n == "h" ? 4 : 1; }) == 2 + 8);
}

}  // namespace affine_test
