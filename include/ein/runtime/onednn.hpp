// oneDNN support of generated host plans: the geometry of a convolution step in oneDNN's terms,
// the primitive a plan builds once for it, and the state a prepared plan keeps (weights reordered
// once into the layout oneDNN chose).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ein/runtime/onednn_geometry.hpp"

namespace ein::runtime {

/// The CPU engine of every oneDNN call of a process (an engine may be shared by threads).
inline const dnnl::engine& onednn_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

/// The calling thread's stream on onednn_engine(): a stream is not to be shared by threads, and
/// one per thread is made once rather than on every call.
inline dnnl::stream& onednn_stream() {
  static thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

/// At least `bytes` of scratch memory for the calling thread, kept for its next calls: `slot` 0
/// is a primitive's scratchpad, 1 and 2 the float copies of a converted call's source and
/// destination (onednn_convolution, onednn_matmul), 3 of a converted product's weights.
inline std::byte* onednn_scratchpad(std::size_t bytes, std::size_t slot = 0) {
  static thread_local std::array<std::unique_ptr<std::byte[]>, 4> buffers;
  static thread_local std::array<std::size_t, 4> sizes{};
  if (bytes > sizes.at(slot)) buffers[slot].reset(new std::byte[bytes]), sizes[slot] = bytes;
  return buffers[slot].get();
}

/// c = alpha · op(a) · op(b) + beta · c, every matrix row-major, op 'N' or 'T' (transposed): a host
/// plan's float product on oneDNN's sgemm, which runs on the process's OpenMP team as its
/// convolutions do. Throws dnnl::error where oneDNN refuses the call.
inline void onednn_sgemm(char trans_a, char trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                         const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                         std::int64_t ldc) {
  dnnl::error::wrap_c_api(dnnl_sgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc),
                          "oneDNN's sgemm refused a product of the plan");
}

/// oneDNN's name of a convolution's element type: float or bfloat16. Throws std::invalid_argument
/// for another (oneDNN 2.6 has no double or half convolution on the CPU).
inline dnnl::memory::data_type onednn_data_type(element_type t) {
  if (t == element_type::f32) return dnnl::memory::data_type::f32;
  if (t == element_type::bf16) return dnnl::memory::data_type::bf16;
  throw std::invalid_argument(std::string("oneDNN runs no ") + name(t) + " convolution on the CPU");
}

/// Whether oneDNN runs bfloat16 convolutions on this CPU with kernels of its own (AVX-512 BF16 or
/// AMX, or AVX-512 emulating them), rather than with its reference loops: asked of oneDNN once,
/// by building the primitive of a small NHWC 3×3 convolution.
inline bool onednn_runs_bfloat16() {
  static const bool runs = [] {
    const auto bf16 = dnnl::memory::data_type::bf16;
    const dnnl::memory::desc x({1, 16, 8, 8}, bf16, dnnl::memory::format_tag::nhwc),
        w({16, 16, 3, 3}, bf16, dnnl::memory::format_tag::any);
    try {
      dnnl::convolution_forward::primitive_desc pd({dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, x, w, dnnl::memory::desc(),
                                                    x, {1, 1}, {1, 1}, {1, 1}},
                                                   onednn_engine());
      return std::string(pd.impl_info_str()).rfind("ref", 0) != 0;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return runs;
}

/// One convolution step of a plan: the forward-inference primitive of a geometry (direct
/// algorithm, weights in the layout oneDNN chooses for it, scaled by alpha), built once. A plan
/// keeps one per step in a function-local static. Every call runs on its thread's stream and
/// scratchpad (the primitive runs with a user scratchpad), so calls from several threads at once
/// share nothing mutable. Buffers hold the geometry's element type (float or ein::bfloat16); a
/// bfloat16 convolution has no epilogue (its plan runs one as an eOperator) and no alpha. Where
/// oneDNN has no bfloat16 implementation on the CPU that runs it (AVX2: the header was generated
/// on another machine), the call converts: the source to float, a float convolution, the result
/// rounded to bfloat16 once; the same values, each sum accumulated in float.
class onednn_convolution {
 public:
  /// Builds the primitive, ending in epilogue `e` where oneDNN runs it in the call (else it runs
  /// after the call, as a loop: epilogue_in_call() says which); throws dnnl::error when oneDNN has
  /// no implementation for `g`.
  explicit onednn_convolution(const onednn_geometry& g, onednn_epilogue e = {})
      : type_(onednn_data_type(g.type)),
        src_(desc(g.src_dims, layout_strides(g.src_dims, g.src_strides, g.dst_dims, g.dst_strides).data(), type_)),
        dst_(desc(g.dst_dims, layout_strides(g.dst_dims, g.dst_strides, g.src_dims, g.src_strides).data(), type_)),
        user_src_(src_),
        user_dst_(dst_),
        user_weights_(weights_desc(g, type_)),
        epilogue_(e),
        channels_(g.dst_dims[1]),
        channel_stride_(g.dst_strides[1]),
        dst_elements_(elements(g.dst_dims, g.dst_strides)) {
    if (g.type != element_type::f32 && (g.alpha != 1 || e.bias || e.residual || e.relu))
      throw std::invalid_argument("onednn_convolution: a bfloat16 convolution takes no alpha and no epilogue");
    // alpha scales the filter as it is reordered: oneDNN 2.6 has no output scale for every float
    // convolution it runs.
    if (g.alpha != 1) scale_.set_output_scales(0, {g.alpha});
    if (g.type != element_type::f32) {
      try {
        make(g, false);
      } catch (const dnnl::error&) {
        convert_to_float(g);
      }
      return;
    }
    try {
      make(g, true);
      // oneDNN 2.6's GEMM-based convolution (`x64:gemm:jit`) adds a binary post-op's elements at
      // the wrong places for NHWC data (tests/codegen/onednn: the 1×11 cases): its residual is
      // added after the call instead.
      if (in_call_ && e.residual && implementation_.find("gemm") != std::string::npos) make(g, false);
    } catch (const dnnl::error&) {
      if (!e.bias && !e.residual && !e.relu) throw;
      make(g, false);  // no implementation takes these post-ops: the epilogue runs after the call
    }
  }

  /// Whether the epilogue runs in oneDNN's call (its bias and post-ops), rather than after it.
  bool epilogue_in_call() const { return in_call_; }

  /// The name of the implementation oneDNN chose, e.g. `brgconv:avx512_core`; `ref:any` is its
  /// reference loops.
  const std::string& implementation() const { return implementation_; }

  /// Whether a bfloat16 convolution runs in float, converted (oneDNN has no bfloat16 kernel for it
  /// on this CPU).
  bool converts() const { return converts_; }

  /// alpha · `weights` (laid out as the geometry says) in the layout of the primitive.
  dnnl::memory reorder_weights(const void* weights) const {
    dnnl::memory user(user_weights_, onednn_engine(), const_cast<void*>(weights));
    dnnl::memory chosen(weights_, onednn_engine());
    dnnl::reorder(user, chosen, scale_).execute(onednn_stream(), user, chosen);
    onednn_stream().wait();
    return chosen;
  }

  /// dst = src ⋆ weights and the epilogue (`bias`, `residual`: null where it has none),
  /// `weights` as reorder_weights() returns them (scaled by alpha).
  void run(const void* src, const dnnl::memory& weights, void* dst, const float* bias = nullptr,
           const float* residual = nullptr) const {
    dnnl::memory s(user_src_, onednn_engine(), const_cast<void*>(src)), d(user_dst_, onednn_engine(), dst),
        pad(scratchpad_, onednn_engine(), onednn_scratchpad(scratchpad_.get_size()));
    if (converts_) {
      dnnl::memory float_src(src_, onednn_engine(), onednn_scratchpad(src_.get_size(), 1)),
          float_dst(dst_, onednn_engine(), onednn_scratchpad(dst_.get_size(), 2));
      to_float_.execute(onednn_stream(), s, float_src);
      primitive_.execute(onednn_stream(), {{DNNL_ARG_SRC, float_src}, {DNNL_ARG_WEIGHTS, weights},
                                           {DNNL_ARG_DST, float_dst}, {DNNL_ARG_SCRATCHPAD, pad}});
      from_float_.execute(onednn_stream(), float_dst, d);
      onednn_stream().wait();
      return;
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, d}, {DNNL_ARG_SCRATCHPAD, pad}};
    if (in_call_ && epilogue_.bias)
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(bias_, onednn_engine(), const_cast<float*>(bias)));
    if (in_call_ && epilogue_.residual)
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   dnnl::memory(dst_, onednn_engine(), const_cast<float*>(residual)));
    primitive_.execute(onednn_stream(), args);
    onednn_stream().wait();
    if (!in_call_) finish(static_cast<float*>(dst), bias, residual);
  }

  /// The same, reordering `weights` (laid out as the geometry says) first.
  void run(const void* src, const void* weights, void* dst, const float* bias = nullptr,
           const float* residual = nullptr) const {
    run(src, reorder_weights(weights), dst, bias, residual);
  }

 private:
  /// `strides` with each extent-1 dimension's stride set where the other activation's layout
  /// (`other_dims`, `other_strides`) places that dimension: just outside the dimensions that are
  /// inner to it there (1 when none is), outermost where the other has extent 1 there too. Any
  /// stride addresses such a dimension, but oneDNN reads the layout from them: a 1-channel NHWC
  /// image with the channel stride of NCHW, beside an NHWC output, sends the convolution to
  /// oneDNN's reference implementation (`bench_host`: FSRCNN's first 5×5 took 35 ms, against
  /// 0.072 ms for oneDNN's own call with the NHWC format tag).
  static std::array<std::int64_t, 4> layout_strides(const std::int64_t* dims, const std::int64_t* strides,
                                                    const std::int64_t* other_dims, const std::int64_t* other_strides) {
    std::array<std::int64_t, 4> out{strides[0], strides[1], strides[2], strides[3]};
    for (int d = 0; d < 4; ++d) {
      if (dims[d] != 1) continue;
      out[d] = 1;
      for (int j = 0; j < 4; ++j)
        if (dims[j] > 1 && (other_dims[d] == 1 || other_strides[j] < other_strides[d]))
          out[d] = std::max(out[d], strides[j] * dims[j]);
    }
    return out;
  }

  static dnnl::memory::desc desc(const std::int64_t* dims, const std::int64_t* strides, dnnl::memory::data_type type) {
    return {{dims, dims + 4}, type, {strides, strides + 4}};
  }

  /// The weights as the geometry lays them out; grouped, with oneDNN's groups dimension in front:
  /// (G, oc/G, ic/G, kh, kw), a group stepping over oc/G filters.
  static dnnl::memory::desc weights_desc(const onednn_geometry& g, dnnl::memory::data_type type) {
    if (g.groups == 1) return desc(g.weights_dims, g.weights_strides, type);
    const std::int64_t per_group = g.weights_dims[0] / g.groups;
    const dnnl::memory::dims dims{g.groups, per_group, g.weights_dims[1], g.weights_dims[2], g.weights_dims[3]},
        strides{per_group * g.weights_strides[0], g.weights_strides[0], g.weights_strides[1], g.weights_strides[2],
                g.weights_strides[3]};
    return {dims, type, strides};
  }

  // Elements from dst's first to one past its last (its strides step forward).
  static std::int64_t elements(const std::int64_t* dims, const std::int64_t* strides) {
    std::int64_t last = 0;
    for (int d = 0; d < 4; ++d) last += (dims[d] - 1) * strides[d];
    return last + 1;
  }

  // The primitive of `g` in float, for a bfloat16 geometry oneDNN has no implementation of here:
  // source and destination copied to and from float on each call, the weights as they are
  // reordered.
  void convert_to_float(const onednn_geometry& g) {
    converts_ = true;
    type_ = dnnl::memory::data_type::f32;
    src_ = dnnl::memory::desc(user_src_.dims(), type_, strides_of(user_src_));
    dst_ = dnnl::memory::desc(user_dst_.dims(), type_, strides_of(user_dst_));
    make(g, false);
    to_float_ = dnnl::reorder(dnnl::reorder::primitive_desc(onednn_engine(), user_src_, onednn_engine(), src_));
    from_float_ = dnnl::reorder(dnnl::reorder::primitive_desc(onednn_engine(), dst_, onednn_engine(), user_dst_));
  }

  static dnnl::memory::dims strides_of(const dnnl::memory::desc& d) {
    const auto& blocking = d.data.format_desc.blocking;
    return {blocking.strides, blocking.strides + d.data.ndims};
  }

  // The primitive of `g`, its epilogue in the call where `in_call` (bias and post-ops), else none.
  void make(const onednn_geometry& g, bool in_call) {
    in_call_ = in_call && (epilogue_.bias || epilogue_.residual || epilogue_.relu);
    const dnnl::memory::dims strides{g.stride[0], g.stride[1]}, dilates{g.dilation[0] - 1, g.dilation[1] - 1},
        pad{g.pad[0], g.pad[1]}, pad_end{g.pad_end[0], g.pad_end[1]};
    const dnnl::memory::desc any(user_weights_.dims(), type_, dnnl::memory::format_tag::any);
    bias_ = in_call_ && epilogue_.bias ? dnnl::memory::desc({channels_}, dnnl::memory::data_type::f32,
                                                             dnnl::memory::format_tag::a)
                                       : dnnl::memory::desc();
    dnnl::post_ops ops;
    if (in_call_ && epilogue_.residual) ops.append_binary(dnnl::algorithm::binary_add, dst_);
    if (in_call_ && epilogue_.relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    attr.set_post_ops(ops);
    const auto inference = dnnl::prop_kind::forward_inference;
    if (g.forward) {
      dnnl::convolution_forward::primitive_desc pd(
          {inference, dnnl::algorithm::convolution_direct, src_, any, bias_, dst_, strides, dilates, pad, pad_end},
          attr, onednn_engine());
      primitive_ = dnnl::convolution_forward(pd);
      weights_ = pd.weights_desc(), scratchpad_ = pd.scratchpad_desc(), implementation_ = pd.impl_info_str();
    } else {
      dnnl::deconvolution_forward::primitive_desc pd(
          {inference, dnnl::algorithm::deconvolution_direct, src_, any, bias_, dst_, strides, dilates, pad, pad_end},
          attr, onednn_engine());
      primitive_ = dnnl::deconvolution_forward(pd);
      weights_ = pd.weights_desc(), scratchpad_ = pd.scratchpad_desc(), implementation_ = pd.impl_info_str();
    }
  }

  // The epilogue after a call that did not run it: over dst's elements in memory order, the
  // channel of each from its offset (dst's channel stride and count).
  void finish(float* dst, const float* bias, const float* residual) const {
    if (!epilogue_.bias && !epilogue_.residual && !epilogue_.relu) return;
    for (std::int64_t i = 0; i < dst_elements_; ++i) {
      float v = dst[i];
      if (epilogue_.bias) v += bias[(i / channel_stride_) % channels_];
      if (epilogue_.residual) v += residual[i];
      dst[i] = epilogue_.relu && v < 0 ? 0.0f : v;
    }
  }

  dnnl::memory::data_type type_;  // of the primitive's source, weights and destination
  dnnl::memory::desc src_, dst_, user_src_, user_dst_, user_weights_, weights_, bias_, scratchpad_;
  onednn_epilogue epilogue_;
  std::int64_t channels_, channel_stride_, dst_elements_;
  bool in_call_ = false;
  bool converts_ = false;  // a bfloat16 call run in float
  dnnl::primitive_attr scale_;  // of the filter's reorder
  dnnl::primitive primitive_;
  dnnl::reorder to_float_, from_float_;  // of a converted call's source and destination
  std::string implementation_;
};

/// What a prepared plan keeps of a convolution step whose weights prepare() binds: the step's
/// primitive (shared with the plan's static one) and its weights reordered once.
class onednn_prepared_convolution {
 public:
  onednn_prepared_convolution(const onednn_convolution& conv, const void* weights)
      : conv_(conv), weights_(conv.reorder_weights(weights)) {}

  void run(const void* src, void* dst, const float* bias = nullptr, const float* residual = nullptr) const {
    conv_.run(src, weights_, dst, bias, residual);
  }

 private:
  onednn_convolution conv_;
  dnnl::memory weights_;
};

/// The slot of a prepared plan's storage, `offset` bytes in, that holds the state of one of its
/// convolution steps (owned: prepare() makes it, free_prepared() deletes it; null until made).
inline onednn_prepared_convolution*& onednn_slot(void* storage, std::int64_t offset) {
  return *reinterpret_cast<onednn_prepared_convolution**>(static_cast<std::byte*>(storage) + offset);
}

/// The state prepare() made in the slot `offset` bytes into `storage`.
inline const onednn_prepared_convolution& onednn_state(const void* storage, std::int64_t offset) {
  return **reinterpret_cast<onednn_prepared_convolution* const*>(static_cast<const std::byte*>(storage) + offset);
}

}  // namespace ein::runtime
