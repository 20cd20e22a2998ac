// The host benchmark's five convolutions (docs/host.md), NHWC, each three times: `searched_<k>`
// (output `y`), `written_<k>` (output `z`) and `onednn_<k>` (output `v`), distinct programs so that
// one build holds the three plans.
#pragma once

#include "ein/ein.hpp"

namespace host_bench {
using namespace ein;

// 1: ResNet-18's 3×3 ([1,7,7,512], 512 filters, padding 1), the paper's Conv3x3.
inline constexpr input<"X", float, 1, 7, 7, 512> x1;
inline constexpr weight<"K", float, 3, 3, 512, 512> k1;
template <front::fixed_string Out>
inline constexpr auto shape_1 = program(ops::conv2d<Out, ops::nhwc, 1, 1>(x1, k1));
// 2: a 3×3 of ResNet-18's third stage ([2,14,14,256], 256 filters, padding 1).
inline constexpr input<"X", float, 2, 14, 14, 256> x2;
inline constexpr weight<"K", float, 3, 3, 256, 256> k2;
template <front::fixed_string Out>
inline constexpr auto shape_2 = program(ops::conv2d<Out, ops::nhwc, 1, 1>(x2, k2));
// 3: a strided 3×3 of odd extents ([1,17,23,24], 40 filters, stride 2, no padding).
inline constexpr input<"X", float, 1, 17, 23, 24> x3;
inline constexpr weight<"K", float, 3, 3, 40, 24> k3;
template <front::fixed_string Out>
inline constexpr auto shape_3 = program(ops::conv2d<Out, ops::nhwc, 2, 0>(x3, k3));
// 4: DCGAN's transposed 4×4 ([4,4,4,512] → 256, stride 2, padding 1).
inline constexpr input<"X", float, 4, 4, 4, 512> x4;
inline constexpr weight<"K", float, 4, 4, 256, 512> k4;
template <front::fixed_string Out>
inline constexpr auto shape_4 = program(ops::conv_transpose2d<Out, ops::nhwc, 2, 1>(x4, k4));
// 5: FSRCNN's last layer, a transposed 9×9 ([1,32,32,56] → 1, stride 1, padding 4).
inline constexpr input<"X", float, 1, 32, 32, 56> x5;
inline constexpr weight<"K", float, 9, 9, 1, 56> k5;
template <front::fixed_string Out>
inline constexpr auto shape_5 = program(ops::conv_transpose2d<Out, ops::nhwc, 1, 4>(x5, k5));

inline constexpr auto searched_1 = shape_1<"y">;
inline constexpr auto written_1 = shape_1<"z">;
inline constexpr auto searched_2 = shape_2<"y">;
inline constexpr auto written_2 = shape_2<"z">;
inline constexpr auto searched_3 = shape_3<"y">;
inline constexpr auto written_3 = shape_3<"z">;
inline constexpr auto searched_4 = shape_4<"y">;
inline constexpr auto written_4 = shape_4<"z">;
inline constexpr auto searched_5 = shape_5<"y">;
inline constexpr auto written_5 = shape_5<"z">;
inline constexpr auto onednn_1 = shape_1<"v">;
inline constexpr auto onednn_2 = shape_2<"v">;
inline constexpr auto onednn_3 = shape_3<"v">;
inline constexpr auto onednn_4 = shape_4<"v">;
inline constexpr auto onednn_5 = shape_5<"v">;
}  // namespace host_bench
