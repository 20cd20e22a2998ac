// Stage two of the library-call test through ein_generate: the ein::ops matrix products of the
// model are library calls in the generated host plan, which equals the interpreter.
#define EIN_STRICT  // the plan must come from the generated header
#include <doctest/doctest.h>

#include "codegen/e2e/harness.hpp"
#include "codegen/front/gemm_model.hpp"
#include "ein_generated/codegen_gemm.hpp"

using gemm_plan = ein::runtime::generated_plan<std::remove_cvref_t<decltype(codegen_gemm::net)>>;

TEST_CASE("generated host plan of ein::ops matrix products equals the interpreter") {
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_against_interpreter(codegen_gemm::net, seed, 1e-5);  // BLAS sums in float
    ein_test::check_against_interpreter(codegen_gemm::net, seed, 1e-5, true);
  }
}

TEST_CASE("the plan of ein::ops matrix products calls the library where a CBLAS is linked") {
  CAPTURE(gemm_plan::description);
#if defined(EIN_HAVE_CBLAS)
  CHECK(gemm_plan::description.find("fc = library matmul(A=x+0, B=W+0) batch=1 m=48 n=40 k=64 B^T") !=
        std::string_view::npos);
  CHECK(gemm_plan::description.find("scores = library batch_matmul(A=q+0, B=k+0) batch=4 m=32 n=40 k=48 B^T") !=
        std::string_view::npos);
  CHECK(gemm_plan::description.find("eOperator") == std::string_view::npos);
#else
  CHECK(gemm_plan::description.find("library") == std::string_view::npos);
#endif
}
