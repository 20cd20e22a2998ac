// The scopes whose library calls the emitter tests generate, compile and run: GEMMs in several
// layouts, Figure 8(b), convolutions (grouped and depthwise too) and a transposed convolution.
#pragma once

#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/match/instance.hpp"
#include "ein/match/operators/conv2d.hpp"
#include "ein/match/operators/conv_transpose2d.hpp"

namespace ein::match::library_test {

struct library_case {
  std::string name;
  ir::scope_ptr scope;
  op_kind kind;
};

inline std::vector<library_case> library_cases() {
  using ir::idx;
  using ir::make_access;
  auto f32 = [](std::string n, std::vector<std::int64_t> s) {
    return ir::tensor{std::move(n), ir::dtype::f32, std::move(s)};
  };
  auto f64 = [](std::string n, std::vector<std::int64_t> s) {
    return ir::tensor{std::move(n), ir::dtype::f64, std::move(s)};
  };
  std::vector<library_case> c;
  // plain, A transposed inside a larger tensor, B transposed, output m-contiguous
  c.push_back(
      {"matmul", operators::matmul_canonical({{"m", 5}, {"n", 6}, {"k", 7}}), op_kind::matmul});
  c.push_back({"matmul_ta_offset",
               ir::make_scope({{"m", 0, 5}, {"n", 0, 6}}, {{"k", 0, 7}},
                              make_access(f32("A", {9, 8}), {idx("k") + 1, idx("m") + 2}) *
                                  make_access(f32("B", {6, 7}), {idx("n"), idx("k")})),
               op_kind::matmul});
  c.push_back(
      {"matmul_out_transposed",
       ir::make_scope({{"n", 0, 6}, {"m", 0, 5}}, {{"k", 0, 7}},
                      ir::make_constant(2.0) * make_access(f32("A", {5, 7}), {idx("m"), idx("k")}) *
                          make_access(f32("B", {7, 6}), {idx("k"), idx("n")})),
       op_kind::matmul});
  c.push_back({"matmul_f64",
               ir::make_scope({{"m", 0, 4}, {"n", 0, 3}}, {{"k", 0, 5}},
                              make_access(f64("A", {4, 5}), {idx("m"), idx("k")}) *
                                  make_access(f64("B", {5, 3}), {idx("k"), idx("n")})),
               op_kind::matmul});
  // m = (t1, t2) does not merge: t1 becomes a batch that broadcasts B (stride 0)
  c.push_back({"matmul_broadcast_batch",
               ir::make_scope({{"t1", 0, 2}, {"t2", 0, 3}, {"n", 0, 4}}, {{"c", 0, 5}},
                              make_access(f32("A", {2, 5, 3}), {idx("t1"), idx("c"), idx("t2")}) *
                                  make_access(f32("B", {5, 4}), {idx("c"), idx("n")})),
               op_kind::matmul});
  c.push_back({"batch_matmul_mixed_layouts",
               ir::make_scope({{"m", 0, 4}, {"b", 0, 3}, {"n", 0, 5}}, {{"k", 0, 6}},
                              make_access(f32("A", {6, 3, 4}), {idx("k"), idx("b"), idx("m")}) *
                                  make_access(f32("B", {3, 5, 6}), {idx("b"), idx("n"), idx("k")})),
               op_kind::batch_matmul});
  c.push_back(
      {"figure_8b",
       ir::make_scope(
           {{"u", 1, 4}, {"v", 0, 4}, {"w", 0, 6}}, {{"x", 0, 5}},
           make_access(f32("X", {4, 2, 4, 6}), {idx("u"), 0, idx("v"), idx("x") + 1}) *
               make_access(f32("Y", {3, 4, 5, 6}), {idx("u") - 1, idx("u"), idx("x"), idx("w")})),
       op_kind::batch_matmul});
  // Conv3x3 NHWC with padding 1 and KRSC filter; NCHW strided and dilated with a KCRS filter
  c.push_back(
      {"conv_nhwc",
       ir::make_scope(
           {{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 5}, {"f", 0, 4}},
           {{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}},
           make_access(f32("X", {2, 6, 5, 3}),
                       {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
               make_access(f32("K", {4, 3, 3, 3}), {idx("f"), idx("r"), idx("s"), idx("c")})),
       op_kind::conv2d});
  c.push_back(
      {"conv_nchw_stride_dilation",
       ir::make_scope(
           {{"n", 0, 2}, {"f", 0, 4}, {"h", 0, 4}, {"w", 0, 4}},
           {{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}},
           make_access(f32("X", {2, 3, 7, 7}), {idx("n"), idx("c"), idx("h") * 2 + idx("r") * 2 - 2,
                                                idx("w") * 2 + idx("s") * 2 - 2}) *
               make_access(f32("K", {4, 3, 3, 3}), {idx("f"), idx("c"), idx("r"), idx("s")})),
       op_kind::conv2d});
  // Conv3x3 with its filter as K[r, s, f, c], in no cuDNN filter format (repacked first)
  c.push_back({"conv_rsfc",
               operators::conv2d_canonical({{"n", 1}, {"h", 7}, {"w", 7}, {"f", 4}, {"c", 3}}),
               op_kind::conv2d});
  // ONNX's grouped Conv, NCHW, 2 groups of 3 channels and 2 filters (KCRS filter (4, 3, 3, 3));
  // MobileNet's depthwise 3×3, NHWC, stride 2, KRSC filter (8, 3, 3, 1)
  c.push_back(
      {"conv_grouped_nchw",
       ir::make_scope({{"n", 0, 2}, {"f", 0, 4}, {"h", 0, 5}, {"w", 0, 5}}, {{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}},
                      make_access(f32("X", {2, 6, 5, 5}), {idx("n"), idx("f").floordiv(2) * 3 + idx("c"),
                                                           idx("h") + idx("r") - 1, idx("w") + idx("s") - 1}) *
                          make_access(f32("K", {4, 3, 3, 3}), {idx("f"), idx("c"), idx("r"), idx("s")})),
       op_kind::conv2d});
  c.push_back(
      {"conv_depthwise_nhwc",
       ir::make_scope({{"n", 0, 2}, {"h", 0, 4}, {"w", 0, 4}, {"f", 0, 8}}, {{"r", 0, 3}, {"s", 0, 3}},
                      make_access(f32("X", {2, 8, 8, 8}), {idx("n"), idx("h") * 2 + idx("r") - 1,
                                                           idx("w") * 2 + idx("s") - 1, idx("f")}) *
                          make_access(f32("K", {8, 3, 3, 1}), {idx("f"), idx("r"), idx("s"), 0})),
       op_kind::conv2d});
  // InfoGAN-style transposed convolution, NCHW dy and (c, f, r, s) filter
  c.push_back(
      {"conv_transpose",
       ir::make_scope(
           {{"n", 0, 2}, {"f", 0, 3}, {"h", 0, 6}, {"w", 0, 6}},
           {{"i", 0, 3}, {"j", 0, 3}, {"c", 0, 4}},
           make_access(f32("A", {2, 4, 3, 3}), {idx("n"), idx("c"), idx("i"), idx("j")}) *
               make_access(f32("K", {4, 3, 4, 4}), {idx("c"), idx("f"), idx("h") - idx("i") * 2 + 1,
                                                    idx("w") - idx("j") * 2 + 1})),
       op_kind::conv_transpose2d});
  return c;
}

}  // namespace ein::match::library_test
