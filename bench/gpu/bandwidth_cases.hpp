// The memory-bound eOperators of the bandwidth benchmark, at sizes several times a GPU's L2: a
// relayout, EinNet's OffsetReduce, an elementwise chain and the two band relayouts of the dilated
// G2BMM (Figure 14), each one definition as the search leaves it for a kernel.
#pragma once

#include <string>
#include <vector>

#include "ein/ir/expr.hpp"

namespace bench_gpu {

struct bandwidth_case {
  std::string name, description;
  ein::ir::program program;
};

inline std::vector<bandwidth_case> bandwidth_cases() {
  namespace ir = ein::ir;
  using ir::idx;
  auto f32 = [](std::string name, std::vector<std::int64_t> shape) {
    return ir::tensor{std::move(name), ir::dtype::f32, std::move(shape), ir::tensor_role::input};
  };
  auto one = [](std::string name, std::vector<ir::tensor> in, ir::scope_ptr s) {
    return ir::program{name, std::move(in), {{"out", std::move(s), ir::dtype::f32}}, {"out"}};
  };
  std::vector<bandwidth_case> c;
  auto X = f32("X", {32, 56, 56, 256});
  c.push_back({"relayout", "NHWC [32,56,56,256] to NCHW: out[n,c,h,w] = X[n,h,w,c]",
               one("relayout", {X},
                   ir::make_scope({{"n", 0, 32}, {"c", 0, 256}, {"h", 0, 56}, {"w", 0, 56}}, {},
                                  ir::make_access(X, {idx("n"), idx("h"), idx("w"), idx("c")})))});
  auto T = f32("T", {3, 3, 4, 256, 56, 56});
  c.push_back({"offset_reduce",
               "Conv3x3's OffsetReduce after its Matmul: out[n,h,w,f] = sum_{r,s} T[r,s,n,f,h+r-1,w+s-1], n=4, 56x56, f=256",
               one("offset_reduce", {T},
                   ir::make_scope({{"n", 0, 4}, {"h", 0, 56}, {"w", 0, 56}, {"f", 0, 256}}, {{"r", 0, 3}, {"s", 0, 3}},
                                  ir::make_access(T, {idx("r"), idx("s"), idx("n"), idx("f"), idx("h") + idx("r") - 1,
                                                      idx("w") + idx("s") - 1})))});
  auto A = f32("A", {8192, 8192}), B = f32("B", {8192, 8192});
  auto a = ir::make_access(A, {idx("i"), idx("j")}), b = ir::make_access(B, {idx("i"), idx("j")});
  c.push_back({"elementwise", "out = relu(0.5 a + b) * a - b, [8192, 8192]",
               one("elementwise", {A, B},
                   ir::make_scope({{"i", 0, 8192}, {"j", 0, 8192}}, {},
                                  ir::make_unary(ir::unary_fn::relu, ir::make_constant(0.5) * a + b) * a - b))});
  auto Q = f32("Q", {16, 10000, 64});
  c.push_back({"g2bmm_input_relayout",
               "the dilated G2BMM's input split by dilation 4: out[b,d,m,k] = Q[b, 4m + d, k], [16,10000,64]",
               one("g2bmm_input_relayout", {Q},
                   ir::make_scope({{"b", 0, 16}, {"d", 0, 4}, {"m", 0, 2500}, {"k", 0, 64}}, {},
                                  ir::make_access(Q, {idx("b"), idx("m") * 4 + idx("d"), idx("k")})))});
  auto O = f32("O", {16, 4, 2500, 257});
  c.push_back({"g2bmm_output_relayout",
               "the band back in sequence order: out[b,m,w] = O[b, m % 4, m / 4, w], [16,10000,257]",
               one("g2bmm_output_relayout", {O},
                   ir::make_scope({{"b", 0, 16}, {"m", 0, 10000}, {"w", 0, 257}}, {},
                                  ir::make_access(O, {idx("b"), idx("m").mod(4), idx("m").floordiv(4), idx("w")})))});
  return c;
}

}  // namespace bench_gpu
