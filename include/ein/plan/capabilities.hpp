// What a build's generated code calls as libraries: the library families, which matched instances
// each runs as one call (BLAS leading-dimension limits, cuDNN's and oneDNN's convolutions), and
// the capabilities value the search prices with and plans are bound for.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <utility>
#include <vector>

#include "ein/match/instance.hpp"
#include "ein/plan/epilogue.hpp"

namespace ein::plan {

namespace detail {

inline bool fits_int(std::int64_t v, std::int64_t lo) { return v >= lo && v <= INT_MAX; }

// Whether a library call may read and write `op`'s element type: float and double everywhere;
// half and bfloat16 where `sixteen_bit` says the library takes them (cuBLAS and cuDNN, which
// accumulate them in float on tensor cores). CBLAS is called in float and double only: a 16-bit
// product on the host stays an eOperator, or the search converts its operands.
inline bool library_type(const match::instance& op, bool sixteen_bit) { return sixteen_bit || !ir::is_16bit(op.type); }

// Whether strides (n, c, h, w) of a (n, c, h, w) tensor are those of a packed NHWC tensor.
inline bool nhwc_packed(const std::array<std::int64_t, 4>& dims, const std::array<std::int64_t, 4>& strides) {
  return strides[1] == 1 && strides[3] == dims[1] && strides[2] == dims[1] * dims[3] &&
         strides[0] == dims[1] * dims[2] * dims[3];
}

// Whether the channels of a (n, c, h, w) tensor are its contiguous dimension (an NHWC-like layout).
inline bool channels_last(const std::array<std::int64_t, 4>& dims, const std::array<std::int64_t, 4>& strides) {
  return dims[1] > 1 && strides[1] == 1;
}

}  // namespace detail

/// Whether CBLAS (row-major) and cuBLAS both accept GEMM `g`: sizes and leading dimensions in
/// int, leading dimensions no smaller than the rows they step over (a degenerate GEMM, an extent-1
/// dimension, may have been matched with a smaller one).
inline bool blas_accepts(const match::gemm_attrs& g) {
  for (auto v : {g.batch, g.m, g.n, g.k, g.lda, g.ldb, g.ldc})
    if (!detail::fits_int(v, 1)) return false;
  return g.lda >= (g.trans_a ? g.m : g.k) && g.ldb >= (g.trans_b ? g.k : g.n) && g.ldc >= g.n;
}

/// Whether the legacy cuDNN API runs convolution `op` as matched: a conv2d or conv_transpose2d
/// (conv_attrs) with symmetric padding, a packed KCRS or KRSC filter (match::repack_filter makes
/// any other one), sizes and strides in int, in a combination cuDNN supports. It refuses
/// (CUDNN_STATUS_NOT_SUPPORTED at the first run) a KRSC (NHWC-format) filter unless x and y are
/// packed NHWC, backward data (conv_transpose2d) with a KRSC filter or channels-last data, and
/// double data with a KRSC filter or channels-last data: those stay eOperators, or read a packed
/// copy of their filter (search::pack_weight_operands) in a layout cuDNN accepts. Half and
/// bfloat16 run as cuDNN runs them on tensor cores, accumulated in float: a forward conv2d of
/// packed NHWC x and y and a KRSC filter, or of NCHW data and a KCRS filter.
/// Example: a float NHWC conv2d with a KRSC filter runs; the same with double data does not; a
/// bfloat16 one runs, and not with a KCRS filter.
inline bool cudnn_accepts(const match::instance& op) {
  auto* a = std::get_if<match::conv_attrs>(&op.attrs);
  if (!a || !a->symmetric() || (a->filter_format != "kcrs" && a->filter_format != "krsc")) return false;
  for (auto v : {a->n, a->c, a->h, a->w, a->k, a->r, a->s, a->p, a->q, a->pad_h, a->pad_w, a->stride_h, a->stride_w,
                 a->dilation_h, a->dilation_w, a->groups})
    if (!detail::fits_int(v, 0)) return false;
  for (auto& strides : {a->x_strides, a->y_strides})
    for (auto v : strides)
      if (!detail::fits_int(v, 0)) return false;
  const std::array<std::int64_t, 4> x{a->n, a->c, a->h, a->w}, y{a->n, a->k, a->p, a->q};
  const bool krsc = a->filter_format == "krsc";
  const bool nhwc_data = detail::channels_last(x, a->x_strides) || detail::channels_last(y, a->y_strides);
  if (krsc && !(detail::nhwc_packed(x, a->x_strides) && detail::nhwc_packed(y, a->y_strides))) return false;
  if (ir::is_16bit(op.type)) return !a->backward_data && (krsc || !nhwc_data);
  if (a->backward_data && (krsc || nhwc_data)) return false;
  return op.type != ir::dtype::f64 || !(krsc || nhwc_data);
}

namespace detail {

// Whether rows of `extent` read with `kernel` taps (dilated by `dilation`), padded by `pad` and
// `pad_end`, give `out` rows at `stride` exactly: oneDNN checks its sizes so.
inline bool rows_agree(std::int64_t extent, std::int64_t kernel, std::int64_t dilation, std::int64_t pad,
                       std::int64_t pad_end, std::int64_t stride, std::int64_t out) {
  const std::int64_t span = extent + pad + pad_end - ((kernel - 1) * dilation + 1);
  return pad >= 0 && pad_end >= 0 && stride >= 1 && dilation >= 1 && span >= 0 && span / stride + 1 == out;
}

// Whether oneDNN describes memory of `dims` by `strides`: every dimension of more than one
// element steps forward, and the steps nest — taken by stride, each dimension starts past the end
// of the one before, so no two elements share an address. oneDNN 2.6's memory descriptors refuse
// any other strides (this rule and theirs agreed on 20000 random layouts); a gradient program
// reads some filters as sliding windows of a weight, which overlap.
inline bool onednn_describes(const std::array<std::int64_t, 4>& dims, const std::array<std::int64_t, 4>& strides) {
  std::vector<std::pair<std::int64_t, std::int64_t>> steps;  // (stride, extent)
  for (int d = 0; d < 4; ++d) {
    if (dims[d] <= 1) continue;
    if (strides[d] <= 0) return false;
    steps.push_back({strides[d], dims[d]});
  }
  std::sort(steps.begin(), steps.end());
  for (std::size_t k = 0; k + 1 < steps.size(); ++k)
    if (steps[k + 1].first < steps[k].first * steps[k].second) return false;
  return true;
}

}  // namespace detail

/// Whether oneDNN 2.6's forward primitives run convolution `op` as matched: a float or bfloat16
/// conv2d (convolution_forward) or conv_transpose2d (deconvolution_forward), any padding before
/// and after, stride and dilation, x, y and filter in any layout whose strides step forward
/// without overlapping (oneDNN memory descriptors with explicit strides:
/// detail::onednn_describes), operands from non-negative offsets; a bfloat16 one unscaled (alpha 1:
/// oneDNN scales the filter as it reorders it, which would round it again). oneDNN has no double
/// or half convolution on the CPU: those stay eOperators.
/// Example: a float NCHW conv2d with a KRSC filter, stride 2, padded 1 before and 0 after, runs;
/// the same with double data does not.
inline bool onednn_accepts(const match::instance& op) {
  auto* a = std::get_if<match::conv_attrs>(&op.attrs);
  if (!a || (op.type != ir::dtype::f32 && !(op.type == ir::dtype::bf16 && a->alpha == 1))) return false;
  for (auto& o : op.inputs)
    if (o.offset < 0) return false;
  const std::array<std::int64_t, 4> x{a->n, a->c, a->h, a->w}, y{a->n, a->k, a->p, a->q},
      w{a->k, a->filter_channels(), a->r, a->s};
  if (!detail::onednn_describes(x, a->x_strides) || !detail::onednn_describes(y, a->y_strides) ||
      !detail::onednn_describes(w, a->w_strides))
    return false;
  // conv2d reads x of h rows into y of p; conv_transpose2d reads y into x of h rows, which oneDNN
  // checks as the convolution it transposes.
  return detail::rows_agree(a->h, a->r, a->dilation_h, a->pad_h, a->pad_h_end, a->stride_h, a->p) &&
         detail::rows_agree(a->w, a->s, a->dilation_w, a->pad_w, a->pad_w_end, a->stride_w, a->q) &&
         (!a->backward_data || (a->dilation_h == 1 && a->dilation_w == 1));
}

/// Whether oneDNN 2.6's matmul primitive runs GEMM `op` as matched (runtime::onednn_matmul): a
/// bfloat16 one whose sizes BLAS would take, each operand's matrices laid out without overlapping
/// (detail::onednn_describes: a convolution matched as a product may slide its rows over one
/// another), one operand at most read for every batch (stride 0: oneDNN's broadcast).
/// Example: 2 products of packed 16 × 12 and 12 × 8 matrices run; the same with A's batches 4
/// elements apart (overlapping rows of 12) do not.
inline bool onednn_matmul_accepts(const match::instance& op) {
  auto* g = std::get_if<match::gemm_attrs>(&op.attrs);
  if (!g || op.type != ir::dtype::bf16 || !blas_accepts(*g) || (g->batch > 1 && g->stride_a == 0 && g->stride_b == 0))
    return false;
  auto describes = [&](std::int64_t stride, std::int64_t rows, std::int64_t cols, bool transposed, std::int64_t ld) {
    return detail::onednn_describes({stride == 0 ? 1 : g->batch, rows, cols, 1},
                                    {stride, transposed ? 1 : ld, transposed ? ld : 1, 1});
  };
  return describes(g->stride_a, g->m, g->k, g->trans_a, g->lda) && describes(g->stride_b, g->k, g->n, g->trans_b, g->ldb) &&
         describes(g->stride_c, g->m, g->n, false, g->ldc);
}

namespace detail {

// Whether a library call can gain on an eOperator for convolution `op`: a compute-bound one
// (EinNet §5), or a grouped one, memory-bound by nature (a depthwise 3×3 does 18 FLOPs for each
// output it writes) but run by the libraries' own grouped and depthwise kernels
// (docs/decisions/0027) — where its filter slides over the image, as those kernels are made for.
// Other shapes match as grouped convolutions too, and stay eOperators when memory-bound: a
// per-channel scale X[n, c, h, w]·S[c] (a depthwise 1×1), and a batch of products, whose filter
// spans a whole row of its image (`bm[b, m, n] = Σ_k Q[b, m, k]·R[b, n, k]` is a depthwise 1×4
// over a 10×4 image, one output column).
inline bool convolution_worth_a_call(const match::instance& op) {
  if (!match::memory_bound(op)) return true;
  auto& a = op.conv();
  const bool slides = (a.r > 1 && a.p > 1) || (a.s > 1 && a.q > 1);
  return a.groups > 1 && slides;
}

// A compute-bound GEMM BLAS accepts, or a matrix-vector product (one matrix, m or n of 1, summed
// over k > 1): memory-bound by its shape, but BLAS streams the matrix at the memory's pace, which
// the eOperator, reading a row for each of its lanes, does not (docs/decisions/0027: ResNet-18's
// classifier, 1 × 512 by 512 × 1000, took 4.18 ms as an eOperator, 0.23 ms as cblas_sgemm).
// CBLAS takes float and double; cuBLAS 16-bit types too (cublasGemmStridedBatchedEx).
inline bool blas_runs_typed(const match::instance& op, bool sixteen_bit) {
  auto* g = std::get_if<match::gemm_attrs>(&op.attrs);
  const bool matrix_vector = g && g->batch == 1 && (g->m == 1 || g->n == 1) && g->k > 1;
  return g && library_type(op, sixteen_bit) && (!match::memory_bound(op) || matrix_vector) && blas_accepts(*g);
}
inline bool blas_runs(const match::instance& op) { return blas_runs_typed(op, false); }
inline bool cublas_runs(const match::instance& op) { return blas_runs_typed(op, true); }

// On a host whose oneDNN runs bfloat16: also a compute-bound bfloat16 GEMM (or matrix-vector
// product) oneDNN's matmul takes.
inline bool blas_onednn_bf16_runs(const match::instance& op) {
  if (op.type != ir::dtype::bf16) return blas_runs(op);
  return blas_runs_typed(op, true) && onednn_matmul_accepts(op);
}

// A compute-bound or grouped convolution cuDNN accepts, every input read from its origin.
inline bool cudnn_runs(const match::instance& op) {
  return cudnn_accepts(op) && convolution_worth_a_call(op) &&
         std::all_of(op.inputs.begin(), op.inputs.end(), [](const match::operand& o) { return o.offset == 0; });
}

// A compute-bound or grouped convolution oneDNN accepts whose filter has no more taps than the image it
// slides over has points, into at least 8 output channels (one AVX vector of floats): oneDNN's
// direct algorithms are made for small filters and vectorize over channels. bench/host's
// transposed 9×9 into 1 channel ran 0.546 ms on oneDNN and 0.111 ms as ein's Matmul + eOperator
// (bench/results/host.json of 2026-11-24T05:56Z), and 20.8 ms against oneDNN's own 5.1 ms when
// matched with its 32×32 input as the filter. Float only where `bfloat16` is false.
inline bool onednn_runs_typed(const match::instance& op, bool bfloat16) {
  if (!onednn_accepts(op) || !convolution_worth_a_call(op) || (op.type != ir::dtype::f32 && !bfloat16)) return false;
  auto& a = op.conv();
  const std::int64_t out_channels = a.backward_data ? a.c : a.k;
  return a.r * a.s <= a.p * a.q && out_channels >= 8;
}
inline bool onednn_runs(const match::instance& op) { return onednn_runs_typed(op, false); }
inline bool onednn_bf16_runs(const match::instance& op) { return onednn_runs_typed(op, true); }

// An epilogue oneDNN runs in a float convolution's call (runtime::onednn_epilogue): a bias per
// output channel (oneDNN's bias), a residual laid out as the output (a binary add post-op), ReLU
// (an eltwise post-op). The output channels are y's of a conv2d and x's of a conv_transpose2d.
inline bool onednn_takes(const match::instance& op, const epilogue_form& e) {
  auto* a = std::get_if<match::conv_attrs>(&op.attrs);
  if (!a || op.type != ir::dtype::f32) return false;
  const std::int64_t channels = a->backward_data ? a->c : a->k;
  const std::int64_t step = a->backward_data ? a->x_strides[1] : a->y_strides[1];
  return !e.bias || (e.bias_extent == channels && e.bias_step == step);
}

// An epilogue cuBLASLt runs after a Matmul of a type `sixteen_bit` allows (float; half and
// bfloat16 too: CUBLASLT_EPILOGUE_{BIAS,RELU,RELU_BIAS}, the residual as C with beta 1, the bias
// of the output's type), and so the host's loop after CBLAS: one product whose output rows are
// packed, the bias along them (the row-major n, cuBLASLt's column-major m).
inline bool blas_takes_typed(const match::instance& op, const epilogue_form& e, bool sixteen_bit) {
  auto* g = std::get_if<match::gemm_attrs>(&op.attrs);
  const bool typed = op.type == ir::dtype::f32 || (sixteen_bit && ir::is_16bit(op.type));
  return g && op.kind == match::op_kind::matmul && typed && g->batch == 1 && g->ldc == g->n &&
         (!e.bias || (e.bias_step == 1 && e.bias_extent == g->n)) && (e.bias || e.residual || e.relu);
}
inline bool blas_takes(const match::instance& op, const epilogue_form& e) { return blas_takes_typed(op, e, false); }
inline bool cublas_takes(const match::instance& op, const epilogue_form& e) { return blas_takes_typed(op, e, true); }

// An epilogue cudnnConvolutionBiasActivationForward runs after a forward convolution of float,
// half or bfloat16 data (cuDNN's FLOAT_CONFIG, PSEUDO_HALF_CONFIG and PSEUDO_BFLOAT16_CONFIG:
// float compute, the bias of the data's type): a bias per output channel (required), the
// residual as z with alpha2 1, ReLU or identity.
inline bool cudnn_takes(const match::instance& op, const epilogue_form& e) {
  auto* a = std::get_if<match::conv_attrs>(&op.attrs);
  return a && !a->backward_data && (op.type == ir::dtype::f32 || ir::is_16bit(op.type)) && e.bias &&
         e.bias_extent == a->k && e.bias_step == a->y_strides[1];
}

}  // namespace detail

/// A library family a generated plan calls, and which matched instances it runs as one call, as
/// matched. Which operators a library runs follows from the attributes its emitter reads; a
/// memory-bound instance (match::memory_bound, EinNet §5) gains nothing from a library and runs
/// as an eOperator, but for a grouped convolution and a matrix-vector product, which the
/// libraries run with kernels of their own for them.
struct library {
  std::string_view name;
  bool (*runs)(const match::instance& op);
  /// Whether a call of `op` can end in epilogue `e` (plan::fuse_epilogues); null: never.
  bool (*takes)(const match::instance& op, const epilogue_form& e) = nullptr;
  bool operator==(const library& o) const { return name == o.name; }
};

/// GEMMs (matmul, batch_matmul: gemm_attrs) whose sizes and leading dimensions CBLAS and cuBLAS
/// accept, compute-bound or matrix-vector products: CBLAS on the host backend, cuBLAS on cuda.
/// Example: a compute-bound matmul with m = 64, k = 48, lda = 48 runs; with lda = 40 (rows
/// overlap) it does not.
inline constexpr library blas{"blas", &detail::blas_runs, &detail::blas_takes};

/// The same family as cuBLAS runs it on cuda: also half and bfloat16 GEMMs, accumulated in float
/// (CUBLAS_COMPUTE_32F) on tensor cores, their epilogues in cuBLASLt's call as float's are.
/// Equal to `blas` (one family, one emitter per backend).
/// Example: a compute-bound bfloat16 matmul runs; under `blas` it stays an eOperator.
inline constexpr library cublas{"blas", &detail::cublas_runs, &detail::cublas_takes};

/// The same family on a host whose oneDNN runs bfloat16 kernels of its own
/// (runtime::onednn_runs_bfloat16): also bfloat16 GEMMs, on oneDNN's matmul primitive, accumulated
/// in float and rounded once, with no epilogue in the call. Equal to `blas`.
/// Example: a compute-bound bfloat16 matmul runs; under `blas` it stays an eOperator, or the
/// search converts its operands to float around cblas_sgemm.
inline constexpr library blas_onednn_bf16{"blas", &detail::blas_onednn_bf16_runs, &detail::blas_takes};

/// Convolutions (conv2d forward, grouped too, and conv_transpose2d as backward data: conv_attrs)
/// the legacy cuDNN API describes (a group count: cudnnSetConvolutionGroupCount): cuda.
/// Example: a conv2d padded (1, 1) runs; one padded 1 before and 2 after each row does not.
inline constexpr library cudnn{"cudnn", &detail::cudnn_runs, &detail::cudnn_takes};

/// Convolutions (conv2d, grouped too, and conv_transpose2d: conv_attrs) oneDNN's forward primitives run, whose
/// filter has no more taps than the image it slides over (y for conv2d, the input for
/// conv_transpose2d) has points, into 8 channels or more: host. A bias per output channel, a
/// residual and ReLU after it run in the call (bias and post-ops).
/// Example: a float conv2d of a 3×3 filter into 16 channels, stride 2, runs; a double one does
/// not; a conv_transpose2d into 1 channel does not, nor one matched with a 32×32 filter over a
/// 9×9 input.
inline constexpr library onednn{"onednn", &detail::onednn_runs, &detail::onednn_takes};

/// The same family where the CPU runs oneDNN's bfloat16 convolutions with kernels of its own
/// (runtime::onednn_runs_bfloat16): also bfloat16 convolutions, accumulated in float and rounded
/// once, with no epilogue in the call. Equal to `onednn` (one family, one emitter).
/// Example: a compute-bound bfloat16 NHWC conv2d runs; under `onednn` it stays an eOperator, or
/// the search converts its operands to float around a float call.
inline constexpr library onednn_bf16{"onednn", &detail::onednn_bf16_runs, &detail::onednn_takes};

/// What a build's generated code calls: the library families it links, in the order a kernel
/// tries them (a GEMM that also matches as a degenerate convolution runs as the GEMM where
/// nothing chose otherwise: a searched plan binds the instance its search priced).
/// `every_operator` is the cost model's own view (EinNet's), which a search takes when no build
/// is named: every matched operator counts as a library call, whatever `libraries` holds. It
/// prices; plans are bound for builds (`libraries` only).
struct capabilities {
  std::vector<library> libraries;
  bool every_operator = false;

  /// The same libraries in the same order, and the same view.
  bool operator==(const capabilities&) const = default;
  /// The first library of this build that runs `op` as one call, or nothing (an eOperator).
  std::optional<library> library_for(const match::instance& op) const {
    for (auto& l : libraries)
      if (l.runs(op)) return l;
    return std::nullopt;
  }
  /// Whether the search prices `op` as a library call for this build.
  bool calls(const match::instance& op) const { return every_operator || library_for(op).has_value(); }
  /// `blas+cudnn`, `none`, or `every operator`.
  std::string str() const {
    if (every_operator) return "every operator";
    std::string r;
    for (auto& l : libraries) r += (r.empty() ? "" : "+") + std::string(l.name);
    return r.empty() ? "none" : r;
  }
};

/// The cost model's view: every matched operator is a library call (capabilities::every_operator).
inline capabilities every_operator() { return {{}, true}; }

}  // namespace ein::plan
