// cuBLASLt support of generated CUDA plans: a float, half or bfloat16 product that ends in its
// epilogue (a bias along its rows, a residual added as C, ReLU), in one call instead of a product
// and a kernel.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "ein/runtime/cublas.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/resource_owner.hpp"

namespace ein::runtime {

/// An owned cuBLASLt handle and the workspace its products share, on the device current at
/// construction. A plan keeps one per device, stream and thread (runtime::per_stream), so the
/// products that share a workspace run in one stream's order.
class cublaslt_handle : resource_owner {
 public:
  /// cuBLASLt picks among more algorithms with a workspace; 8 MiB covers its heuristics' choices
  /// for the products of ein's models.
  static constexpr std::size_t workspace_bytes = std::size_t{8} << 20;

  cublaslt_handle() {
    EIN_CUBLAS_CHECK(cublasLtCreate(&handle_));
    const release_on_throw undo([this] { release(); });
    EIN_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes));
  }
  ~cublaslt_handle() { release(); }
  cublasLtHandle_t get() const { return handle_; }
  void* workspace() const { return workspace_; }

 private:
  // At exit the device may already be gone: failed frees are not worth reporting then.
  void release() noexcept {
    if (workspace_) ignore_status(cudaFree(workspace_));
    cublasLtDestroy(handle_);
  }

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
};

/// A row-major product C[m, n] = alpha · op(A) · op(B) (ein's gemm attributes) and its
/// epilogue, as generated code hands it over: `bias` along n, `residual` of C's shape and
/// layout, `relu`; `tf32` lets cuBLASLt round float operands to TF32. `type` is every operand's,
/// the bias's and the residual's: CUDA_R_32F, or CUDA_R_16F / CUDA_R_16BF, which cuBLASLt
/// accumulates in float (CUBLAS_COMPUTE_32F, float scalars) and rounds once, after the epilogue.
struct lt_product {
  bool trans_a = false, trans_b = false;
  std::int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  bool bias = false, residual = false, relu = false, tf32 = false;
  cudaDataType_t type = CUDA_R_32F;
};

/// What one product step with an epilogue keeps between runs: cuBLASLt's descriptors of the
/// product. Row-major C is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, so cuBLASLt's A is ein's B, its m is
/// ein's n, and the bias runs along its rows (CUBLASLT_EPILOGUE_BIAS adds a vector of m).
/// A plan keeps one per step, device, stream and thread: run() sets the bias pointer on it and
/// asks cuBLASLt's heuristic for an algorithm once per alignment of the operands (algorithm()).
class cublaslt_product : resource_owner {
 public:
  explicit cublaslt_product(const lt_product& p) : residual_(p.residual) {
    const release_on_throw undo([this] { release(); });
    EIN_CUBLAS_CHECK(
        cublasLtMatmulDescCreate(&desc_, p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, tb = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    EIN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    EIN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    const cublasLtEpilogue_t epilogue = p.bias ? (p.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
                                               : (p.relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
    EIN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    // The bias is of the output's type, as cuBLASLt requires of float and 16-bit outputs (its
    // default, said outright).
    if (p.bias) {
      const std::int32_t bias_type = p.type;
      EIN_CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    }
    // cuBLASLt's A: ein's B, (n × k) or its transpose, column-major; its B: ein's A.
    const auto rows = [](bool t, std::int64_t r, std::int64_t c) { return static_cast<std::uint64_t>(t ? c : r); };
    const auto cols = [](bool t, std::int64_t r, std::int64_t c) { return static_cast<std::uint64_t>(t ? r : c); };
    EIN_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&a_, p.type, rows(p.trans_b, p.n, p.k), cols(p.trans_b, p.n, p.k), p.ldb));
    EIN_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&b_, p.type, rows(p.trans_a, p.k, p.m), cols(p.trans_a, p.k, p.m), p.lda));
    EIN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c_, p.type, static_cast<std::uint64_t>(p.n),
                                                static_cast<std::uint64_t>(p.m), p.ldc));
  }
  ~cublaslt_product() { release(); }

  /// C = epilogue(alpha · op(A) · op(B)) on stream `s`, every operand of the product's type:
  /// `bias` (n elements) when the product has one, `residual` (C's shape and layout) added with
  /// beta 1 when it has one, else ignored.
  void run(const cublaslt_handle& h, float alpha, const void* a, const void* b, const void* bias,
           const void* residual, void* c, cudaStream_t s) {
    if (bias) EIN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    const float beta = residual_ ? 1.0f : 0.0f;
    const void* in_c = residual_ ? residual : c;
    const cublasLtMatmulAlgo_t& algo = algorithm(h, alignment({a, b, bias, in_c, c}));
    EIN_CUBLAS_CHECK(cublasLtMatmul(h.get(), desc_, &alpha, b, a_, a, b_, &beta, in_c, c_, c, c_, &algo, h.workspace(),
                                    cublaslt_handle::workspace_bytes, s));
  }

  /// The largest power of two, at most 256, that divides every address of `pointers` (nulls left
  /// out): the alignment cuBLASLt may assume of the operands.
  static unsigned alignment(std::initializer_list<const void*> pointers) {
    std::uintptr_t bits = 256;
    for (const void* p : pointers) bits |= reinterpret_cast<std::uintptr_t>(p);
    return static_cast<unsigned>(bits & (~bits + 1));
  }

 private:
  // cuBLASLt's first algorithm for operands aligned to `bytes`, asked once per alignment. A null
  // algorithm would ask on every call, under the default preference: no workspace, and operands
  // aligned to 256 bytes, which an operand at an offset into a buffer is not.
  const cublasLtMatmulAlgo_t& algorithm(const cublaslt_handle& h, unsigned bytes) {
    const auto slot = static_cast<std::size_t>(std::countr_zero(bytes));
    if (known_ >> slot & 1u) return algorithms_[slot];
    struct owned_preference {
      cublasLtMatmulPreference_t p = nullptr;
      ~owned_preference() {
        if (p) cublasLtMatmulPreferenceDestroy(p);
      }
    } preference;
    EIN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference.p));
    const std::uint64_t workspace = cublaslt_handle::workspace_bytes;
    EIN_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &workspace, sizeof workspace));
    const std::uint32_t aligned = bytes;
    for (auto attribute : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                           CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      EIN_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference.p, attribute, &aligned, sizeof aligned));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    EIN_CUBLAS_CHECK(
        cublasLtMatmulAlgoGetHeuristic(h.get(), desc_, a_, b_, c_, c_, preference.p, 1, &result, &found));
    if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)
      throw cublas_error(CUBLAS_STATUS_NOT_SUPPORTED,
                         "cublasLtMatmulAlgoGetHeuristic: no algorithm for this product and its epilogue", __FILE__,
                         __LINE__);
    algorithms_[slot] = result.algo;
    known_ |= 1u << slot;
    return algorithms_[slot];
  }

  // At exit the device may already be gone: failed destroys are not worth reporting then.
  void release() noexcept {
    if (c_) cublasLtMatrixLayoutDestroy(c_);
    if (b_) cublasLtMatrixLayoutDestroy(b_);
    if (a_) cublasLtMatrixLayoutDestroy(a_);
    if (desc_) cublasLtMatmulDescDestroy(desc_);
  }

  bool residual_ = false;
  // By log2 of the alignment, those whose bit in known_ is set. (Not std::optional: nvcc 13.0's
  // front end fails on an array of optional algorithms.)
  std::array<cublasLtMatmulAlgo_t, 9> algorithms_{};
  unsigned known_ = 0;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
};

}  // namespace ein::runtime
