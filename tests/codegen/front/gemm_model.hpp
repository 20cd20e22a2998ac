// A model of compute-bound matrix products written with ein::ops: through ein_generate, each
// definition is a library call (CBLAS on the host backend where one is found, cuBLAS on cuda).
#pragma once

#include "ein/ein.hpp"

namespace codegen_gemm {
using namespace ein;
inline constexpr input<"x", float, 48, 64> x;      // (batch, features in)
inline constexpr weight<"W", float, 40, 64> W;     // (features out, features in)
inline constexpr input<"q", float, 4, 32, 48> q;   // (heads, queries, features)
inline constexpr input<"k", float, 4, 40, 48> k;   // (heads, keys, features)
inline constexpr auto net = program(ops::matmul<"fc", ops::trans_b>(x, W),
                                    ops::batch_matmul<"scores", ops::trans_b>(q, k));
}  // namespace codegen_gemm
