// Hand-built IR programs behind program objects: models for the codegen and runtime tests that
// need no front end (each object has ein::program_key and ein::reify, as a front-end program has).
#pragma once

#include <cstdint>
#include <string>

#include "support/generate.hpp"
#include "ein/ir/expr.hpp"

namespace ein_test {

/// The program object of hand-built program `Id`; its IR comes from build<Id>().
template <int Id>
struct hand_program {};

namespace ir = ein::ir;
using ir::idx;

inline ir::tensor f32(std::string name, std::vector<std::int64_t> shape,
                      ir::tensor_role role = ir::tensor_role::input) {
  return {std::move(name), ir::dtype::f32, std::move(shape), role};
}
inline ir::expr read(const ir::tensor& t, std::vector<ir::affine> index) {
  return ir::make_access(t, std::move(index));
}
inline ir::program one_definition(std::string name, std::vector<ir::tensor> tensors,
                                  ir::scope_ptr value, ir::dtype type = ir::dtype::f32) {
  return {name, std::move(tensors), {{"out", std::move(value), type}}, {"out"}};
}

/// Programs 0..program_count-1 are written out below; programs fuzz_base + k are drawn by
/// ein::eval::generate_program from seed k + 1 (padding, strides, floor division and modulo,
/// nested scopes with negative boxes, several definitions).
inline constexpr int fuzz_base = 100;
inline constexpr int fuzz_count = 24;

template <int Id>
ir::program build() {
  static_assert(Id >= fuzz_base && Id < fuzz_base + fuzz_count, "no such hand-built program");
  return ein::eval::generate_program(Id - fuzz_base + 1);
}

/// C[i, j] = Σ_k A[i, k] · B[k, j]
template <>
inline ir::program build<0>() {
  auto A = f32("A", {5, 6}), B = f32("B", {6, 7}, ir::tensor_role::weight);
  return one_definition("matmul", {A, B},
                        ir::make_scope({{"i", 0, 5}, {"j", 0, 7}}, {{"k", 0, 6}},
                                       read(A, {idx("i"), idx("k")}) * read(B, {idx("k"), idx("j")})));
}

/// 3×3 convolution, NHWC, padding 1: out[n, h, w, f] = Σ_{r,s,c} A[n, h+r-1, w+s-1, c] · K[r, s, f, c]
template <>
inline ir::program build<1>() {
  auto A = f32("A", {2, 5, 6, 3}), K = f32("K", {3, 3, 4, 3}, ir::tensor_role::weight);
  return one_definition(
      "conv_nhwc", {A, K},
      ir::make_scope({{"n", 0, 2}, {"h", 0, 5}, {"w", 0, 6}, {"f", 0, 4}},
                     {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 3}},
                     read(A, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                         read(K, {idx("r"), idx("s"), idx("f"), idx("c")})));
}

/// Elementwise, every unary function: relu(2.5·A + B) · tanh(A) - exp(-B) / (1 + sigmoid(A))
template <>
inline ir::program build<2>() {
  auto A = f32("A", {4, 9}), B = f32("B", {4, 9});
  auto a = read(A, {idx("i"), idx("j")}), b = read(B, {idx("i"), idx("j")});
  using F = ir::unary_fn;
  auto body = ir::make_unary(F::relu, ir::make_constant(2.5) * a + b) * ir::make_unary(F::tanh, a) -
              ir::make_unary(F::exp, ir::make_unary(F::neg, b)) /
                  (ir::make_constant(1) + ir::make_unary(F::sigmoid, a));
  return one_definition("elementwise", {A, B}, ir::make_scope({{"i", 0, 4}, {"j", 0, 9}}, {}, body));
}

/// G2BMM with dilation 3, half-width 2: O[b, m, w] = Σ_k A[b, m, k] · B[b, m + 3·(w - 2), k]
template <>
inline ir::program build<3>() {
  auto A = f32("A", {2, 10, 4}), B = f32("B", {2, 10, 4});
  return one_definition(
      "g2bmm", {A, B},
      ir::make_scope({{"b", 0, 2}, {"m", 0, 10}, {"w", 0, 5}}, {{"k", 0, 4}},
                     read(A, {idx("b"), idx("m"), idx("k")}) *
                         read(B, {idx("b"), idx("m") + (idx("w") - 2) * 3, idx("k")})));
}

/// Two definitions, both outputs, the first reading a nested product one row before its box and
/// the second reading the first one row past its box:
/// h[i, j] = relu(Σ_k A[i - 1, k] · B[k, j]) for i in [0, 6); out[i, j] = h[i, j] + h[i + 2, j] + C[j]
template <>
inline ir::program build<4>() {
  auto A = f32("A", {5, 3}), B = f32("B", {3, 4}), C = f32("C", {4}, ir::tensor_role::weight);
  auto mm = ir::make_scope({{"i", 0, 5}, {"j", 0, 4}}, {{"k", 0, 3}},
                           read(A, {idx("i"), idx("k")}) * read(B, {idx("k"), idx("j")}));
  auto h_value = ir::make_scope({{"i", 0, 6}, {"j", 0, 4}}, {},
                                ir::make_unary(ir::unary_fn::relu, ir::make_access(mm, {idx("i") - 1, idx("j")})));
  ir::tensor h{"h", ir::dtype::f32, {6, 4}, ir::tensor_role::definition};
  auto out = ir::make_scope({{"i", 0, 5}, {"j", 0, 4}}, {},
                            read(h, {idx("i"), idx("j")}) + read(h, {idx("i") + 2, idx("j")}) +
                                read(C, {idx("j")}));
  return {"two_definitions", {A, B, C}, {{"h", h_value, ir::dtype::f32}, {"out", out, ir::dtype::f32}},
          {"out", "h"}};
}

/// Nested scopes, one shared by two reads and one inside another:
/// out[i] = Σ_j N[i, j - 1] · N[j, i] + M[i], N = L_{a in [-1, 4), b in [0, 4)} A[a, b] + 1,
/// M = L_{t in [0, 4)} Σ_u {L_{p in [0, 4)} A[p, p] · 2}[u] · A[t, u]
template <>
inline ir::program build<5>() {
  auto A = f32("A", {4, 4});
  auto N = ir::make_scope({{"a", -1, 4}, {"b", 0, 4}}, {},
                          read(A, {idx("a"), idx("b")}) + ir::make_constant(1));
  auto diag = ir::make_scope({{"p", 0, 4}}, {}, read(A, {idx("p"), idx("p")}) * ir::make_constant(2));
  auto M = ir::make_scope({{"t", 0, 4}}, {{"u", 0, 4}},
                          ir::make_access(diag, {idx("u")}) * read(A, {idx("t"), idx("u")}));
  auto body = ir::make_access(N, {idx("i"), idx("j") - 1}) * ir::make_access(N, {idx("j"), idx("i")}) +
              ir::make_access(M, {idx("i")});
  return one_definition("nested", {A}, ir::make_scope({{"i", 0, 4}}, {{"j", 0, 4}}, body));
}

/// Floor division and modulo, with negative dividends and padding:
/// out[t, q] = A[t / 4, t % 4] · B[(q + t) % 3] · B[(q + t + 3) % 3] for t in [-3, 13), q in [0, 2)
template <>
inline ir::program build<6>() {
  auto A = f32("A", {3, 4}), B = f32("B", {3});
  return one_definition(
      "floordiv_mod", {A, B},
      ir::make_scope({{"t", -3, 13}, {"q", 0, 2}}, {},
                     read(A, {idx("t").floordiv(4), idx("t").mod(4)}) *
                         read(B, {(idx("q") + idx("t")).mod(3)}) *
                         read(B, {(idx("q") + idx("t") + 3).mod(3)})));
}

/// Double precision and a scalar result: out = Σ_{i,j} A[i, j] · A[j, i]
template <>
inline ir::program build<7>() {
  ir::tensor A{"A", ir::dtype::f64, {3, 3}, ir::tensor_role::input};
  return one_definition("scalar_f64", {A},
                        ir::make_scope({}, {{"i", 0, 3}, {"j", 0, 3}},
                                       read(A, {idx("i"), idx("j")}) * read(A, {idx("j"), idx("i")})),
                        ir::dtype::f64);
}

/// Matrix products large enough to be compute-bound (library calls), one reading the other:
/// t[i, j] = Σ_k A[k, i] · B[j, k] (both operands transposed); out[i, l] = Σ_j t[i, j] · D[j, l]
template <>
inline ir::program build<8>() {
  auto A = f32("A", {36, 40}), B = f32("B", {48, 36}), D = f32("D", {48, 32}, ir::tensor_role::weight);
  auto t_value = ir::make_scope({{"i", 0, 40}, {"j", 0, 48}}, {{"k", 0, 36}},
                                read(A, {idx("k"), idx("i")}) * read(B, {idx("j"), idx("k")}));
  ir::tensor t{"t", ir::dtype::f32, {40, 48}, ir::tensor_role::definition};
  auto out = ir::make_scope({{"i", 0, 40}, {"l", 0, 32}}, {{"j", 0, 48}},
                            read(t, {idx("i"), idx("j")}) * read(D, {idx("j"), idx("l")}));
  return {"gemm_chain", {A, B, D}, {{"t", t_value, ir::dtype::f32}, {"out", out, ir::dtype::f32}}, {"out"}};
}

/// Batch matmul: out[b, i, j] = Σ_k X[b, i, k] · Y[b, k, j]
template <>
inline ir::program build<9>() {
  auto X = f32("X", {3, 32, 36}), Y = f32("Y", {3, 36, 40});
  return one_definition("batch_gemm", {X, Y},
                        ir::make_scope({{"b", 0, 3}, {"i", 0, 32}, {"j", 0, 40}}, {{"k", 0, 36}},
                                       read(X, {idx("b"), idx("i"), idx("k")}) *
                                           read(Y, {idx("b"), idx("k"), idx("j")})));
}

/// Double precision matmul with a scale: out[i, j] = Σ_k 0.5 · A[i, k] · B[k, j]
template <>
inline ir::program build<10>() {
  ir::tensor A{"A", ir::dtype::f64, {56, 60}, ir::tensor_role::input};
  ir::tensor B{"B", ir::dtype::f64, {60, 64}, ir::tensor_role::weight};
  return one_definition("gemm_f64", {A, B},
                        ir::make_scope({{"i", 0, 56}, {"j", 0, 64}}, {{"k", 0, 60}},
                                       ir::make_constant(0.5) * read(A, {idx("i"), idx("k")}) *
                                           read(B, {idx("k"), idx("j")})),
                        ir::dtype::f64);
}

/// Convolution, NHWC, padding 1, KRSC filter, compute-bound (a cuDNN call on the cuda backend):
/// out[n, h, w, f] = Σ_{r,s,c} X[n, h+r-1, w+s-1, c] · K[f, r, s, c]
template <>
inline ir::program build<11>() {
  auto X = f32("X", {2, 8, 8, 16}), K = f32("K", {16, 3, 3, 16}, ir::tensor_role::weight);
  return one_definition(
      "conv_cudnn", {X, K},
      ir::make_scope({{"n", 0, 2}, {"h", 0, 8}, {"w", 0, 8}, {"f", 0, 16}},
                     {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 16}},
                     read(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                         read(K, {idx("f"), idx("r"), idx("s"), idx("c")})));
}

/// Transposed convolution, NCHW, stride 2, padding 1, (c, f, r, s) filter (cuDNN backward data
/// on the cuda backend): out[n, f, h, w] = Σ_{i,j,c} A[n, c, i, j] · K[c, f, h-2i+1, w-2j+1]
template <>
inline ir::program build<12>() {
  auto A = f32("A", {2, 16, 4, 4}), K = f32("K", {16, 8, 4, 4}, ir::tensor_role::weight);
  return one_definition(
      "conv_transpose_cudnn", {A, K},
      ir::make_scope({{"n", 0, 2}, {"f", 0, 8}, {"h", 0, 8}, {"w", 0, 8}},
                     {{"i", 0, 4}, {"j", 0, 4}, {"c", 0, 16}},
                     read(A, {idx("n"), idx("c"), idx("i"), idx("j")}) *
                         read(K, {idx("c"), idx("f"), idx("h") - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1})));
}

/// 3×3 max pooling, stride 2, padding 1, NHWC: padded points are left out (PyTorch's MaxPool2d),
/// out[n, h, w, c] = max_{r,s} A[n, 2h+r-1, 2w+s-1, c]
template <>
inline ir::program build<13>() {
  auto A = f32("A", {2, 7, 7, 3});
  return one_definition(
      "max_pool", {A},
      ir::make_scope({{"n", 0, 2}, {"h", 0, 4}, {"w", 0, 4}, {"c", 0, 3}}, {{"r", 0, 3}, {"s", 0, 3}},
                     read(A, {idx("n"), 2 * idx("h") + idx("r") - 1, 2 * idx("w") + idx("s") - 1, idx("c")}),
                     ir::reduction::max));
}

/// Numerically stable softmax over the last axis: m = max_j X[i, j], e = exp(X - m),
/// out = e / Σ_j e
template <>
inline ir::program build<14>() {
  auto X = f32("X", {5, 9});
  ir::tensor m{"m", ir::dtype::f32, {5}, ir::tensor_role::definition};
  ir::tensor e{"e", ir::dtype::f32, {5, 9}, ir::tensor_role::definition};
  ir::tensor z{"z", ir::dtype::f32, {5}, ir::tensor_role::definition};
  auto x = read(X, {idx("i"), idx("j")});
  ir::program p{"softmax", {X}, {}, {"out"}};
  p.definitions.push_back({"m", ir::make_scope({{"i", 0, 5}}, {{"j", 0, 9}}, x, ir::reduction::max)});
  p.definitions.push_back({"e", ir::make_scope({{"i", 0, 5}, {"j", 0, 9}}, {},
                                               ir::make_unary(ir::unary_fn::exp, x - read(m, {idx("i")})))});
  p.definitions.push_back({"z", ir::make_scope({{"i", 0, 5}}, {{"j", 0, 9}}, read(e, {idx("i"), idx("j")}))});
  p.definitions.push_back({"out", ir::make_scope({{"i", 0, 5}, {"j", 0, 9}}, {},
                                                 read(e, {idx("i"), idx("j")}) / read(z, {idx("i")}))});
  return p;
}

/// A min over a window that leaves A at both ends (the first and last elements have no point
/// left: +inf), of a body with max and min nodes: out[i] = min_k max(A[i+k-2], B[i]) - min(A[i+k-2], 0)
template <>
inline ir::program build<15>() {
  auto A = f32("A", {5}), B = f32("B", {8});
  auto a = read(A, {idx("i") + idx("k") - 2});
  return one_definition("min_window", {A, B},
                        ir::make_scope({{"i", 0, 8}}, {{"k", 0, 2}},
                                       ir::max(a, read(B, {idx("i")})) - ir::min(a, ir::make_constant(0)),
                                       ir::reduction::min));
}

/// A product ending in a bias along its columns, a residual and a ReLU (one library call with
/// its epilogue where the build calls BLAS): t[i, j] = Σ_k A[i, k] · W[k, j];
/// out[i, j] = max(t[i, j] + b[j] + R[i, j], 0)
template <>
inline ir::program build<16>() {
  auto A = f32("A", {48, 64}), W = f32("W", {64, 40}, ir::tensor_role::weight), b = f32("b", {40}, ir::tensor_role::weight);
  auto R = f32("R", {48, 40});
  ir::tensor t{"t", ir::dtype::f32, {48, 40}, ir::tensor_role::definition};
  auto product = ir::make_scope({{"i", 0, 48}, {"j", 0, 40}}, {{"k", 0, 64}},
                                read(A, {idx("i"), idx("k")}) * read(W, {idx("k"), idx("j")}));
  auto out = ir::make_scope({{"i", 0, 48}, {"j", 0, 40}}, {},
                            ir::max(read(t, {idx("i"), idx("j")}) + read(b, {idx("j")}) + read(R, {idx("i"), idx("j")}),
                                    ir::make_constant(0)));
  return {"gemm_epilogue", {A, W, b, R}, {{"t", product, ir::dtype::f32}, {"out", out, ir::dtype::f32}}, {"out"}};
}

/// 40 layers of a 32-wide perceptron: h_l[i, j] = relu(Σ_k h_{l-1}[i, k] · W_l[k, j] + b_l[j]),
/// each layer a product and an elementwise definition (80 kernels as eOperators; 40 calls with
/// their epilogues where the build calls BLAS).
template <>
inline ir::program build<17>() {
  constexpr int layers = 40;
  ir::program p{"relu_chain", {f32("X", {32, 32})}, {}, {}};
  ir::tensor in = p.tensors[0];
  for (int l = 0; l < layers; ++l) {
    const std::string n = std::to_string(l);
    auto W = f32("W" + n, {32, 32}, ir::tensor_role::weight), b = f32("b" + n, {32}, ir::tensor_role::weight);
    p.tensors.push_back(W);
    p.tensors.push_back(b);
    ir::tensor z{"z" + n, ir::dtype::f32, {32, 32}, ir::tensor_role::definition};
    p.definitions.push_back({z.name, ir::make_scope({{"i", 0, 32}, {"j", 0, 32}}, {{"k", 0, 32}},
                                                    read(in, {idx("i"), idx("k")}) * read(W, {idx("k"), idx("j")}))});
    ir::tensor h{"h" + n, ir::dtype::f32, {32, 32}, ir::tensor_role::definition};
    p.definitions.push_back(
        {h.name, ir::make_scope({{"i", 0, 32}, {"j", 0, 32}}, {},
                                ir::make_unary(ir::unary_fn::relu, read(z, {idx("i"), idx("j")}) + read(b, {idx("j")})))});
    in = h;
  }
  p.outputs = {in.name};
  return p;
}

/// A convolution ending in a bias per output channel and a ReLU (one cuDNN call with its
/// epilogue on cuda): c[n, h, w, f] = Σ_{r,s,c} X[n, h+r-1, w+s-1, c] · K[f, r, s, c];
/// out[n, h, w, f] = relu(c[n, h, w, f] + b[f])
template <>
inline ir::program build<18>() {
  auto X = f32("X", {2, 8, 8, 16}), K = f32("K", {16, 3, 3, 16}, ir::tensor_role::weight);
  auto b = f32("b", {16}, ir::tensor_role::weight);
  ir::tensor c{"c", ir::dtype::f32, {2, 8, 8, 16}, ir::tensor_role::definition};
  auto conv = ir::make_scope({{"n", 0, 2}, {"h", 0, 8}, {"w", 0, 8}, {"f", 0, 16}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 16}},
                             read(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                 read(K, {idx("f"), idx("r"), idx("s"), idx("c")}));
  std::vector<ir::affine> at{idx("n"), idx("h"), idx("w"), idx("f")};
  auto out = ir::make_scope({{"n", 0, 2}, {"h", 0, 8}, {"w", 0, 8}, {"f", 0, 16}}, {},
                            ir::make_unary(ir::unary_fn::relu, read(c, at) + read(b, {idx("f")})));
  return {"conv_epilogue", {X, K, b}, {{"c", conv, ir::dtype::f32}, {"out", out, ir::dtype::f32}}, {"out"}};
}

/// MobileNet's depthwise 3×3, NCHW, stride 2, padding 1, KCRS filter of one channel a filter (a
/// cuDNN call with group count 32 on the cuda backend):
/// out[n, f, p, q] = Σ_{r,s} X[n, f, 2p+r-1, 2q+s-1] · K[f, 0, r, s]
template <>
inline ir::program build<19>() {
  auto X = f32("X", {2, 32, 10, 10}), K = f32("K", {32, 1, 3, 3}, ir::tensor_role::weight);
  return one_definition(
      "conv_depthwise_cudnn", {X, K},
      ir::make_scope({{"n", 0, 2}, {"f", 0, 32}, {"p", 0, 5}, {"q", 0, 5}}, {{"r", 0, 3}, {"s", 0, 3}},
                     read(X, {idx("n"), idx("f"), idx("p") * 2 + idx("r") - 1, idx("q") * 2 + idx("s") - 1}) *
                         read(K, {idx("f"), 0, idx("r"), idx("s")})));
}

inline constexpr int program_count = 20;
inline constexpr hand_program<0> matmul;
inline constexpr hand_program<1> conv_nhwc;
inline constexpr hand_program<2> elementwise;
inline constexpr hand_program<3> g2bmm;
inline constexpr hand_program<4> two_definitions;
inline constexpr hand_program<5> nested;
inline constexpr hand_program<6> floordiv_mod;
inline constexpr hand_program<7> scalar_f64;
inline constexpr hand_program<8> gemm_chain;
inline constexpr hand_program<9> batch_gemm;
inline constexpr hand_program<10> gemm_f64;
inline constexpr hand_program<11> conv_cudnn;
inline constexpr hand_program<12> conv_transpose_cudnn;
inline constexpr hand_program<13> max_pool;
inline constexpr hand_program<14> softmax;
inline constexpr hand_program<15> min_window;
inline constexpr hand_program<16> gemm_epilogue;
inline constexpr hand_program<17> relu_chain;
inline constexpr hand_program<18> conv_epilogue;
inline constexpr hand_program<19> conv_depthwise_cudnn;

/// The generated programs: `fuzz<k>` is hand_program<fuzz_base + k>.
template <int K>
inline constexpr hand_program<fuzz_base + K> fuzz;

/// The C++ names of the objects, in Id order (the generator writes one header per entry).
inline constexpr const char* object_names[program_count] = {
    "matmul", "conv_nhwc", "elementwise", "g2bmm", "two_definitions", "nested", "floordiv_mod", "scalar_f64",
    "gemm_chain", "batch_gemm", "gemm_f64", "conv_cudnn", "conv_transpose_cudnn", "max_pool", "softmax",
    "min_window", "gemm_epilogue", "relu_chain", "conv_epilogue", "conv_depthwise_cudnn"};

}  // namespace ein_test

namespace ein {

/// The key of a hand-built program. Defining EIN_TEST_CHANGED_PROGRAM stands for editing the
/// matmul model after its header was generated.
template <int Id>
constexpr std::uint64_t program_key(const ein_test::hand_program<Id>&) {
#if defined(EIN_TEST_CHANGED_PROGRAM)
  if (Id == 0) return 0xdeadULL;
#endif
  return 0xe1000ULL + Id;
}

template <int Id>
ir::program reify(const ein_test::hand_program<Id>&, std::string name = "") {
  ir::program p = ein_test::build<Id>();
  if (!name.empty()) p.name = std::move(name);
  return p;
}

}  // namespace ein
