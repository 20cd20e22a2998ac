// Stage two of the searched codegen test: the headers the generator wrote from optimize_program's
// plans of the paper's cases are compiled here; each plan must equal the interpreter on random
// inputs and have the structure the search finds today.
#define EIN_STRICT  // every program here must have its generated plan
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "codegen/e2e/paper_programs.hpp"  // before the harness: it declares ein::reify of them
#include "codegen/e2e/harness.hpp"
#include "ein_generated/hand_paper_conv3x3.hpp"
#include "ein_generated/hand_paper_conv5x5.hpp"
#include "ein_generated/hand_paper_conv_transpose.hpp"
#include "ein_generated/hand_paper_g2bmm.hpp"

namespace {

#if defined(EIN_HAVE_CBLAS)
constexpr bool have_cblas = true;
#else
constexpr bool have_cblas = false;
#endif

template <int K>
using searched_plan = ein::runtime::plan<ein_test::hand_program<ein_test::searched_base + K>>;

// Lines of the plan's description that name a step (`  name = ...`).
std::size_t steps(std::string_view description) {
  std::size_t n = 0;
  for (auto at = description.find("\n  "); at != std::string_view::npos; at = description.find("\n  ", at + 1)) ++n;
  return n;
}

template <int K>
void check_searched() {
  constexpr ein_test::hand_program<ein_test::searched_base + K> object;
  using plan = searched_plan<K>;
  static_assert(plan::target == ein::runtime::backend::host);
  MESSAGE(plan::description);
  CHECK(plan::description.find("search: optimize_program") != std::string_view::npos);
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_against_interpreter(object, seed, 1e-4);
    ein_test::check_against_interpreter(object, seed, 1e-4, true);
  }
}

}  // namespace

TEST_CASE("searched Conv3x3 [1,7,7,16], 16 filters, padding 1: a matmul, then an OffsetReduce eOperator") {
  check_searched<0>();
  using plan = searched_plan<0>;
  CHECK(steps(plan::description) == 2);
  CHECK(plan::description.find("  out_k1 = ") != std::string_view::npos);
  CHECK(plan::description.find("  out = eOperator L_{n:[0,1), h:[0,7), w:[0,7), f:[0,16)} "
                               "Σ_{r:[0,3), s:[0,3)} out_k1[") != std::string_view::npos);
  if (have_cblas) CHECK(plan::description.find("  out_k1 = library matmul(") != std::string_view::npos);
}

// The cases below keep their form as written under the H100 model at these sizes: their
// values are checked and their plans printed.
TEST_CASE("searched ConvTranspose (InfoGAN, reduced: [2,2,2,16] → 16, 4×4, stride 2, padding 1)") {
  check_searched<1>();
}

TEST_CASE("searched dilated G2BMM (reduced: [2,40,8], dilation 2, half-width 4)") { check_searched<2>(); }

TEST_CASE("searched Conv5x5 (reduced: [1,8,8,8], 8 filters, padding 2)") { check_searched<3>(); }
