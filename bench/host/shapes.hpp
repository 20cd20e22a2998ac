// The host benchmark's convolutions (docs/host.md), NHWC: five shapes, then six layers of the
// seven models at their configurations (batch 1), each three times: `searched_<k>`
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

// 6: ResNet's stem (ResNet-18, GCN), 7×7 stride 2 padding 3, [1,224,224,3] → 64.
inline constexpr input<"X", float, 1, 224, 224, 3> x6;
inline constexpr weight<"K", float, 7, 7, 64, 3> k6;
template <front::fixed_string Out>
inline constexpr auto shape_6 = program(ops::conv2d<Out, ops::nhwc, 2, 3>(x6, k6));
// 7: ResNet-50's downsampling 1×1 stride 2 (GCN's backbone), [1,56,56,256] → 512.
inline constexpr input<"X", float, 1, 56, 56, 256> x7;
inline constexpr weight<"K", float, 1, 1, 512, 256> k7;
template <front::fixed_string Out>
inline constexpr auto shape_7 = program(ops::conv2d<Out, ops::nhwc, 2, 0>(x7, k7));
// 8: CSRNet's dilated 3×3 (dilation 2, padding 2), [1,14,14,512] → 512.
inline constexpr input<"X", float, 1, 14, 14, 512> x8;
inline constexpr weight<"K", float, 3, 3, 512, 512> k8;
template <front::fixed_string Out>
inline constexpr auto shape_8 = program(ops::conv2d<Out, ops::nhwc, 1, 2, 2>(x8, k8));
// 9: GCN's 11×1 on its third stage (padding 5 along h), [1,28,28,512] → 21.
inline constexpr input<"X", float, 1, 28, 28, 512> x9;
inline constexpr weight<"K", float, 11, 1, 21, 512> k9;
inline constexpr ops::hw along_h{5, 0};
template <front::fixed_string Out>
inline constexpr auto shape_9 = program(ops::conv2d<Out, ops::nhwc, 1, along_h>(x9, k9));
// 10: FSRCNN's feature extraction, 5×5 padding 2, [1,32,32,1] → 56.
inline constexpr input<"X", float, 1, 32, 32, 1> x10;
inline constexpr weight<"K", float, 5, 5, 56, 1> k10;
template <front::fixed_string Out>
inline constexpr auto shape_10 = program(ops::conv2d<Out, ops::nhwc, 1, 2>(x10, k10));
// 11: InfoGAN's fourth transposed 4×4 (stride 2, padding 1), [1,8,8,128] → 64.
inline constexpr input<"X", float, 1, 8, 8, 128> x11;
inline constexpr weight<"K", float, 4, 4, 64, 128> k11;
template <front::fixed_string Out>
inline constexpr auto shape_11 = program(ops::conv_transpose2d<Out, ops::nhwc, 2, 1>(x11, k11));

inline constexpr auto searched_1 = shape_1<"y">;
inline constexpr auto written_1 = shape_1<"z">;
inline constexpr auto onednn_1 = shape_1<"v">;
inline constexpr auto searched_2 = shape_2<"y">;
inline constexpr auto written_2 = shape_2<"z">;
inline constexpr auto onednn_2 = shape_2<"v">;
inline constexpr auto searched_3 = shape_3<"y">;
inline constexpr auto written_3 = shape_3<"z">;
inline constexpr auto onednn_3 = shape_3<"v">;
inline constexpr auto searched_4 = shape_4<"y">;
inline constexpr auto written_4 = shape_4<"z">;
inline constexpr auto onednn_4 = shape_4<"v">;
inline constexpr auto searched_5 = shape_5<"y">;
inline constexpr auto written_5 = shape_5<"z">;
inline constexpr auto onednn_5 = shape_5<"v">;
inline constexpr auto searched_6 = shape_6<"y">;
inline constexpr auto written_6 = shape_6<"z">;
inline constexpr auto onednn_6 = shape_6<"v">;
inline constexpr auto searched_7 = shape_7<"y">;
inline constexpr auto written_7 = shape_7<"z">;
inline constexpr auto onednn_7 = shape_7<"v">;
inline constexpr auto searched_8 = shape_8<"y">;
inline constexpr auto written_8 = shape_8<"z">;
inline constexpr auto onednn_8 = shape_8<"v">;
inline constexpr auto searched_9 = shape_9<"y">;
inline constexpr auto written_9 = shape_9<"z">;
inline constexpr auto onednn_9 = shape_9<"v">;
inline constexpr auto searched_10 = shape_10<"y">;
inline constexpr auto written_10 = shape_10<"z">;
inline constexpr auto onednn_10 = shape_10<"v">;
inline constexpr auto searched_11 = shape_11<"y">;
inline constexpr auto written_11 = shape_11<"z">;
inline constexpr auto onednn_11 = shape_11<"v">;
}  // namespace host_bench
