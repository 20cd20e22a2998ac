// The choice for a build leaves out derived plans whose weight transforms outgrow their weights
// (search::weight_transforms_fit): a transposed convolution over 32×32 images as one dense GEMM.
#include "rediscover_support.hpp"

#include <limits>

#include "ein/derive/all.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/optimize.hpp"

namespace weight_budget_test {

using namespace search_test;

TEST_CASE("weight transforms: a relayout holds the weights' bytes, a dense expansion more") {
  // the paper's ConvTranspose: its dense GEMM over a 2×2 image holds 4× the filter and fits
  auto src = conv_transpose(16, 2, 448, 256, 4, 2, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  const std::int64_t filter = 4 * 4 * 256 * 448 * 4;
  bool dense = false;
  for (auto& c : r.candidates)
    if (search::weight_transform_bytes(c.p) == 4 * filter) {
      dense = true;
      CHECK(search::weight_transforms_fit(c.p));
    }
  CHECK(dense);
  CHECK(search::weight_transform_bytes(r.baseline) == 0);
}

TEST_CASE("weight transforms: DCGAN's last layer at batch 16 is not chosen as a 3.2 GB dense GEMM") {
  // [16,32,32,64] → 3, 4×4, stride 2, padding 1: a 12 KB filter
  auto src = conv_transpose(16, 32, 64, 3, 4, 2, 1);
  auto r = search::optimize(src, derive::intra_rules(), h100());
  search::choose_for_backend(r, h100(), cuda_with_cudnn(), ein::ir::dtype::f32);
  MESSAGE("chosen (" << search::weight_transform_bytes(r.best) << " bytes of weight transforms):\n" << r.best.str());
  CHECK(search::weight_transforms_fit(r.best));
  CHECK(search::seconds_as_run(r.best, h100(), cuda_with_cudnn()) <= search::seconds_as_run(r.baseline, h100(), cuda_with_cudnn()));
  // the bound is what leaves the dense GEMM out: it is priced below the choice
  double cheapest_left_out = std::numeric_limits<double>::infinity();
  std::int64_t smallest_left_out = std::numeric_limits<std::int64_t>::max();
  for (auto& c : r.candidates)
    if (!search::weight_transforms_fit(c.p)) {
      smallest_left_out = std::min(smallest_left_out, search::weight_transform_bytes(c.p));
      cheapest_left_out = std::min(cheapest_left_out, search::seconds_as_run(c.p, h100(), cuda_with_cudnn()));
    }
  CHECK(smallest_left_out > (std::int64_t{64} << 20));
  CHECK(cheapest_left_out < search::seconds_as_run(r.best, h100(), cuda_with_cudnn()));
}

}  // namespace weight_budget_test
