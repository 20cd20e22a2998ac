// Matmul: O[m, n] = Σ_k A[m, k] · B[k, n] — iterator groups, canonical expression, and the
// GEMM attribute inference shared with BatchMatmul.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ein/match/flatten.hpp"
#include "ein/match/table.hpp"

namespace ein::match::operators {

inline std::int64_t size_or(const std::map<std::string, std::int64_t>& size, const char* name,
                            std::int64_t fallback) {
  auto it = size.find(name);
  return it == size.end() ? fallback : it->second;
}

/// The leading dimension of a 2-D operand whose contiguous iterator has extent `ce` and stride
/// `cs`, and whose other iterator has extent `oe` and stride `os`: `os` (or the smallest legal
/// value when `oe` is 1). Nothing when the contiguous stride is not 1 or rows would overlap.
inline std::optional<std::int64_t> leading_dimension(std::int64_t ce, std::int64_t cs,
                                                     std::int64_t oe, std::int64_t os) {
  if (ce > 1 && cs != 1) return std::nullopt;
  std::int64_t ld = oe > 1 ? os : std::max<std::int64_t>(ce, 1);
  if (ld < std::max<std::int64_t>(ce, 1)) return std::nullopt;
  return ld;
}

/// The GEMM of merged groups m, n, k and batch b (strides per operand: m in (A, O), n in
/// (B, O), k in (A, B), b in (A, B, O)): C must have n contiguous, and A and B either of their
/// iterators contiguous (the other one's stride is the leading dimension; m contiguous in A
/// means transA).
inline std::optional<instance> gemm_of(const binding& b, op_kind kind, const merged& gm,
                                       const merged& gn, const merged& gk, const merged& gb) {
  gemm_attrs g;
  g.batch = gb.extent, g.m = gm.extent, g.n = gn.extent, g.k = gk.extent;
  g.stride_a = gb.stride[0], g.stride_b = gb.stride[1], g.stride_c = gb.stride[2];
  g.alpha = b.alpha;
  auto ldc = leading_dimension(g.n, gn.stride[1], g.m, gm.stride[1]);
  if (!ldc) return std::nullopt;
  g.ldc = *ldc;
  if (auto l = leading_dimension(g.k, gk.stride[0], g.m, gm.stride[0])) {
    g.lda = *l;
  } else if (auto t = leading_dimension(g.m, gm.stride[0], g.k, gk.stride[0])) {
    g.lda = *t, g.trans_a = true;
  } else {
    return std::nullopt;
  }
  if (auto l = leading_dimension(g.n, gn.stride[0], g.k, gk.stride[1])) {
    g.ldb = *l;
  } else if (auto t = leading_dimension(g.k, gk.stride[1], g.n, gn.stride[0])) {
    g.ldb = *t, g.trans_b = true;
  } else {
    return std::nullopt;
  }
  instance r;
  r.kind = kind;
  bind_operands(r, b, {b.in[0].base(), b.in[1].base()});
  double e = static_cast<double>(ir::element_bytes(r.type));
  double bm = static_cast<double>(g.batch), m = static_cast<double>(g.m),
         n = static_cast<double>(g.n), k = static_cast<double>(g.k);
  // an operand with batch stride 0 is shared by every batch: read once
  auto copies = [&](std::int64_t stride) { return stride == 0 ? 1.0 : bm; };
  r.flops = 2 * bm * m * n * k;
  r.bytes = e * (copies(g.stride_a) * m * k + copies(g.stride_b) * k * n + bm * m * n);
  r.grid = {g.batch, g.m, g.n};
  r.attrs = g;
  return r;
}

/// The GEMM as a BLAS reads memory, for batch q in [0, batch) (gemm_attrs gives the formula).
inline void gemm_execute(const instance& op, const double* A, const double* B, double* C) {
  auto& g = op.gemm();
  for (std::int64_t q = 0; q < g.batch; ++q)
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (std::int64_t k = 0; k < g.k; ++k) {
          double a = A[q * g.stride_a + (g.trans_a ? k * g.lda + i : i * g.lda + k)];
          double b = B[q * g.stride_b + (g.trans_b ? j * g.ldb + k : k * g.ldb + j)];
          acc += a * b;
        }
        C[q * g.stride_c + i * g.ldc + j] = g.alpha * acc;
      }
}

/// GEMM attributes from a binding whose columns hold m, n, k and (optionally) b, each group
/// merged (flattenable in every operand where it appears). When m's (or n's) iterators do not
/// merge into one, a Matmul may still run as a batched GEMM that broadcasts the other input:
/// one of them becomes the batch (stride 0 in the input that does not read it) and the others
/// must merge, e.g.
/// O[m, b, n] = Σ_k A[b, m, k]·W[k, n] is W shared by b batches of A[b]·W.
inline std::optional<instance> infer_gemm(const binding& b, op_kind kind) {
  const view &A = b.in[0], &B = b.in[1], &O = b.out;
  auto& it = b.iters;
  if (!A.in_bounds(it) || !B.in_bounds(it)) return std::nullopt;
  static const std::vector<std::string> none;
  auto& batch_iters = kind == op_kind::batch_matmul ? b.column_of("b") : none;
  auto gk = merge(b.column_of("k"), {&A, &B}, it);
  if (!gk) return std::nullopt;
  auto gm = merge(b.column_of("m"), {&A, &O}, it);
  auto gn = merge(b.column_of("n"), {&B, &O}, it);
  auto gb = merge(batch_iters, {&A, &B, &O}, it);
  if (gm && gn && gb) return gemm_of(b, kind, *gm, *gn, *gk, *gb);
  if (kind != op_kind::matmul) return std::nullopt;
  for (bool split_m : {true, false}) {
    if (split_m ? gm.has_value() : gn.has_value()) continue;
    auto& col = b.column_of(split_m ? "m" : "n");
    for (auto& x : col) {
      auto rest = col;
      std::erase(rest, x);
      if (rest.empty()) continue;
      auto g = split_m ? merge(rest, {&A, &O}, it) : merge(rest, {&B, &O}, it);
      auto other = split_m ? gn : gm;
      if (!g || !other) continue;
      merged batch;
      batch.order = {x};
      batch.extent = it.at(x).extent;
      batch.stride = {A.coefficient(x), B.coefficient(x), O.coefficient(x)};
      if (batch.stride[split_m ? 0 : 1] <= 0 || batch.stride[2] <= 0) continue;
      if (auto r = split_m ? gemm_of(b, kind, *g, *other, *gk, batch)
                           : gemm_of(b, kind, *other, *g, *gk, batch))
        return r;
    }
  }
  return std::nullopt;
}

/// Matmul canonical expression: L_{m,n} Σ_k A[m, k] · B[k, n].
inline ir::scope_ptr matmul_canonical(const std::map<std::string, std::int64_t>& size) {
  auto m = size_or(size, "m", 3), n = size_or(size, "n", 4), k = size_or(size, "k", 5);
  ir::tensor A{"A", ir::dtype::f32, {m, k}}, B{"B", ir::dtype::f32, {k, n}};
  return ir::make_scope({{"m", 0, m}, {"n", 0, n}}, {{"k", 0, k}},
                        ir::make_access(A, {ir::idx("m"), ir::idx("k")}) *
                            ir::make_access(B, {ir::idx("k"), ir::idx("n")}));
}

inline std::optional<instance> matmul_infer(const binding& b) {
  return infer_gemm(b, op_kind::matmul);
}

/// Table 2 row: m in {A, O}, n in {B, O}, k in {A, B} summed.
inline operator_def matmul() {
  return {op_kind::matmul,
          body_kind::product,
          {"A", "B"},
          {{0b01, true, {"m"}, false}, {0b10, true, {"n"}, false}, {0b11, false, {"k"}, true}},
          matmul_canonical,
          matmul_infer,
          gemm_execute};
}

}  // namespace ein::match::operators
