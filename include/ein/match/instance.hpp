// A matched operator: its kind, operands, inferred attributes and cost facts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ein/ir/expr.hpp"

namespace ein::match {

/// The operators of the iterator mapping table (see match/all.hpp for their order), each named
/// once: the list drives op_kind and op_kind_names.
#define EIN_FOR_EACH_OP_KIND(X) \
  X(elementwise)                \
  X(matmul)                     \
  X(batch_matmul)               \
  X(conv2d)                     \
  X(conv_transpose2d)           \
  X(g2bmm)                      \
  X(gbmm)

enum class op_kind : std::uint8_t {
#define EIN_ENUM_ITEM(k) k,
  EIN_FOR_EACH_OP_KIND(EIN_ENUM_ITEM)
#undef EIN_ENUM_ITEM
};
/// The name of each operator, in op_kind's order: what reports and device profiles call it.
inline constexpr const char* op_kind_names[] = {
#define EIN_NAME_ITEM(k) #k,
    EIN_FOR_EACH_OP_KIND(EIN_NAME_ITEM)
#undef EIN_NAME_ITEM
};
inline const char* name(op_kind k) { return op_kind_names[static_cast<int>(k)]; }

/// One operand of a matched operator: the tensor (or nested scope) it reads, seen as a flat
/// row-major buffer, and the element offset where the operator's view of it starts.
struct operand {
  std::string role;  // the operator's name for it: "A", "B", "x", "w", "dy", "O" ...
  /// The source: an input/weight tensor, a nested scope, or (monostate) the scope's own value.
  std::variant<std::monostate, ir::tensor, ir::scope_ptr> source;
  std::int64_t offset = 0;    // first element of the view in the flattened source
  std::int64_t elements = 0;  // size of the flattened source

  bool is_output() const { return std::holds_alternative<std::monostate>(source); }
  /// Tensor name, "<scope>" for a nested scope, "<out>" for the output.
  std::string source_name() const {
    if (auto* t = std::get_if<ir::tensor>(&source)) return t->name;
    return is_output() ? "<out>" : "<scope>";
  }
};

/// Elementwise: O[t] = fn(I0[t], I1[t]) over `count` contiguous elements of every operand.
struct elementwise_attrs {
  std::string fn;  // "add", "sub", "mul", "div", or a unary function name ("relu", ...)
  std::int64_t count = 0;
};

/// (Strided batched) GEMM in row-major BLAS terms, for batch index q in [0, batch):
///   C[q·stride_c + i·ldc + j] = alpha · Σ_k opA(i, k) · opB(k, j)
///   opA(i, k) = A[q·stride_a + (trans_a ? k·lda + i : i·lda + k)]
///   opB(k, j) = B[q·stride_b + (trans_b ? j·ldb + k : k·ldb + j)]
/// Pointers are the operands' sources advanced by their `offset`.
struct gemm_attrs {
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  bool trans_a = false, trans_b = false;
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  double alpha = 1;
};

/// The geometry of a forward 2-D convolution in cuDNN's terms (cross-correlation):
///   y[n, k, p, q] = alpha · Σ_{c,r,s} x[n, c, p·stride_h + r·dilation_h − pad_h, ...] · w[k, c, r,
///   s]
/// with reads of x outside [0, h) × [0, w) equal to zero. `pad_h_end` is the padding after the
/// last row (equal to pad_h when the padding is symmetric). Every tensor is described by its
/// element strides in the order given, from the operand's origin, so any layout is representable;
/// `data_format` and `filter_format` name the common packed orders.
/// conv2d computes y from x and w (x = A, w = B, y = O); conv_transpose2d is the backward-data
/// pass of this convolution: it computes x (= O) from y (= A) and w (= B).
/// A grouped convolution (`groups` G > 1; depthwise when G = c) splits the c channels and the k
/// filters into G groups, and filter k reads only the c/G channels of its group
/// g = ⌊k / (k/G)⌋: w is (k, c/G, r, s), as cuDNN's group count and PyTorch's `groups` read it,
///   y[n, k, p, q] = alpha · Σ_{c' < c/G, r, s} x[n, g·c/G + c', ...] · w[k, c', r, s].
struct conv_attrs {
  std::int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1, p = 1, q = 1;
  std::int64_t groups = 1;
  std::int64_t pad_h = 0, pad_w = 0, pad_h_end = 0, pad_w_end = 0;
  std::int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::array<std::int64_t, 4> x_strides{}, w_strides{},
      y_strides{};            // (n,c,h,w) (k,c,r,s) (n,k,p,q)
  std::string data_format;         // of x and y: "nchw", "nhwc" (by stride order) or "strided"
  std::string filter_format;  // "kcrs", "krsc" (packed) or "strided"
  double alpha = 1;
  bool backward_data = false;  // the backward-data pass (conv_transpose2d): x is the output
  bool symmetric() const { return pad_h == pad_h_end && pad_w == pad_w_end; }
  /// The channels one filter reads: the filter's second extent.
  std::int64_t filter_channels() const { return c / groups; }
  /// The channel of x that filter k reads as its channel `channel` (< filter_channels()).
  std::int64_t input_channel(std::int64_t filter, std::int64_t channel) const {
    return filter / (k / groups) * filter_channels() + channel;
  }
};

/// Band products with half-width `width` (W) and dilation D, batch index b, rows m; the band row
/// of B for output column w is m + D·(w − W), zero outside [0, m):
///   g2bmm: O[b, m, w] = alpha · Σ_f A[b, m, f] · B[b, m + D·(w − W), f],  w in [0, 2W + 1)
///   gbmm:  O[b, m, f] = alpha · Σ_w A[b, m, w] · B[b, m + D·(w − W), f]
/// Strides are (b, m, f-or-w) for A and O, (b, row, f) for B.
struct band_attrs {
  std::int64_t batch = 1, m = 1, features = 1, width = 0, dilation = 1;
  std::array<std::int64_t, 3> a_strides{}, b_strides{}, o_strides{};
  double alpha = 1;
};

/// The output as the GEMM a library computes it as (convolutions as implicit GEMMs): `batch`
/// matrices of `rows` × `cols`, how the work divides among thread blocks; all 0 where it is no
/// GEMM (elementwise operators). Example: matmul m=49 n=4608 gives 1 × 49 × 4608; conv2d n=1
/// p×q=7×7 k=512 gives 1 × 49 × 512 (rows n·p·q, columns the filters).
struct output_grid {
  std::int64_t batch = 0, rows = 0, cols = 0;
  std::int64_t elements() const { return batch * rows * cols; }
};

/// A scope recognized as one library operator.
struct instance {
  op_kind kind = op_kind::elementwise;
  std::vector<operand> inputs;  // in the operator's operand order
  operand output;
  std::variant<elementwise_attrs, gemm_attrs, conv_attrs, band_attrs> attrs;
  ir::dtype type = ir::dtype::f32;
  double flops = 0, bytes = 0;  // floating-point operations; bytes read and written
  output_grid grid;             // the output as a GEMM (elements written: grid.elements())

  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
  const elementwise_attrs& elementwise() const { return std::get<elementwise_attrs>(attrs); }
  const gemm_attrs& gemm() const { return std::get<gemm_attrs>(attrs); }
  const conv_attrs& conv() const { return std::get<conv_attrs>(attrs); }
  const band_attrs& band() const { return std::get<band_attrs>(attrs); }
  std::string str() const;
};

/// True when the instance moves more bytes than it can hide behind arithmetic: FLOPs per byte
/// below `threshold` (EinNet §5 uses 4). Memory-bound instances are better left as eOperators.
inline bool memory_bound(const instance& i, double threshold = 4.0) {
  return i.intensity() < threshold;
}

inline std::string instance::str() const {
  auto n = [](std::int64_t v) { return std::to_string(v); };
  auto list = [&](auto& a) {
    std::string r;
    for (auto v : a) r += (r.empty() ? "(" : ",") + n(v);
    return r + ")";
  };
  std::string s = name(kind);
  s += "(";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    s += (i ? ", " : "") + inputs[i].role + "=" + inputs[i].source_name() + "+" +
         n(inputs[i].offset);
  s += ") ";
  if (auto* e = std::get_if<elementwise_attrs>(&attrs)) s += e->fn + " count=" + n(e->count);
  if (auto* g = std::get_if<gemm_attrs>(&attrs))
    s += "batch=" + n(g->batch) + " m=" + n(g->m) + " n=" + n(g->n) + " k=" + n(g->k) +
         (g->trans_a ? " A^T" : "") + (g->trans_b ? " B^T" : "") + " lda=" + n(g->lda) +
         " ldb=" + n(g->ldb) + " ldc=" + n(g->ldc) + " strides=" + n(g->stride_a) + "," +
         n(g->stride_b) + "," + n(g->stride_c);
  if (auto* c = std::get_if<conv_attrs>(&attrs))
    s += "n=" + n(c->n) + " c=" + n(c->c) + " hw=" + n(c->h) + "x" + n(c->w) + " k=" + n(c->k) +
         " rs=" + n(c->r) + "x" + n(c->s) + " pq=" + n(c->p) + "x" + n(c->q) +
         " pad=" + n(c->pad_h) + "," + n(c->pad_w) + " pad_end=" + n(c->pad_h_end) + "," +
         n(c->pad_w_end) + " stride=" + n(c->stride_h) + "," + n(c->stride_w) +
         " dilation=" + n(c->dilation_h) + "," + n(c->dilation_w) +
         (c->groups != 1 ? " groups=" + n(c->groups) : "") + " " + c->data_format + "/" +
         c->filter_format + " strides=" + list(c->x_strides) + list(c->w_strides) +
         list(c->y_strides);
  if (auto* b = std::get_if<band_attrs>(&attrs))
    s += "batch=" + n(b->batch) + " m=" + n(b->m) + " features=" + n(b->features) +
         " W=" + n(b->width) + " D=" + n(b->dilation) + " strides=" + list(b->a_strides) +
         list(b->b_strides) + list(b->o_strides);
  double alpha = std::visit(
      [](auto& a) {
        if constexpr (requires { a.alpha; })
          return a.alpha;
        else
          return 1.0;
      },
      attrs);
  if (alpha != 1) s += " alpha=" + std::to_string(alpha);
  return s;
}

}  // namespace ein::match
