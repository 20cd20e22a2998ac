// The host benchmark's peer: one NHWC convolution or transposed convolution as oneDNN runs it,
// its weights reordered once into the layout oneDNN chooses.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <vector>

namespace host_bench {

/// A convolution (or, `transposed`, a transposed convolution) of NHWC input [n, h, w, c] with
/// filters K[r, s, f, c] (ein's rsfc), one stride on both axes, padding per axis and dilation
/// (a convolution's only), into NHWC [n, oh, ow, f].
struct conv_shape {
  std::int64_t n, h, w, c, f, r, s, stride, pad_h, pad_w;
  bool transposed;
  std::int64_t dilation = 1;
  std::int64_t oh() const { return extent(h, r, pad_h); }
  std::int64_t ow() const { return extent(w, s, pad_w); }

 private:
  std::int64_t extent(std::int64_t in, std::int64_t taps, std::int64_t pad) const {
    return transposed ? (in - 1) * stride - 2 * pad + taps : (in + 2 * pad - dilation * (taps - 1) - 1) / stride + 1;
  }
};

/// oneDNN's forward-inference primitive for `shape`, prepared for weights `k` (ein's layout):
/// run() reads x and writes y, both NHWC, on oneDNN's CPU engine.
class onednn_conv {
 public:
  onednn_conv(const conv_shape& shape, const std::vector<float>& k) {
    using md = dnnl::memory::desc;
    using tag = dnnl::memory::format_tag;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::dims src{shape.n, shape.c, shape.h, shape.w}, dst{shape.n, shape.f, shape.oh(), shape.ow()},
        weights{shape.f, shape.c, shape.r, shape.s}, strides{shape.stride, shape.stride},
        dilates{shape.dilation - 1, shape.dilation - 1};  // oneDNN counts the taps skipped
    // The right padding that gives ein's output extent (a stride may leave input rows unread).
    auto right = [&](std::int64_t out, std::int64_t in, std::int64_t taps, std::int64_t pad) {
      return shape.transposed ? pad : (out - 1) * shape.stride + shape.dilation * (taps - 1) + 1 - in - pad;
    };
    const dnnl::memory::dims left{shape.pad_h, shape.pad_w},
        right_pad{right(shape.oh(), shape.h, shape.r, shape.pad_h), right(shape.ow(), shape.w, shape.s, shape.pad_w)};
    src_ = md(src, f32, tag::nhwc);
    dst_ = md(dst, f32, tag::nhwc);
    const md any(weights, f32, tag::any);
    const md chosen = shape.transposed ? make<dnnl::deconvolution_forward>(dnnl::algorithm::deconvolution_direct, any,
                                                                          strides, dilates, left, right_pad)
                                       : make<dnnl::convolution_forward>(dnnl::algorithm::convolution_direct, any,
                                                                         strides, dilates, left, right_pad);
    // K[r, s, f, c] to [f, r, s, c] (oneDNN's ohwi), then reordered once into its choice.
    std::vector<float> ohwi(k.size());
    for (std::int64_t r = 0; r < shape.r; ++r)
      for (std::int64_t s = 0; s < shape.s; ++s)
        for (std::int64_t f = 0; f < shape.f; ++f)
          for (std::int64_t c = 0; c < shape.c; ++c)
            ohwi[((f * shape.r + r) * shape.s + s) * shape.c + c] = k[((r * shape.s + s) * shape.f + f) * shape.c + c];
    dnnl::memory user(md(weights, f32, tag::ohwi), engine_, ohwi.data());
    weights_ = dnnl::memory(chosen, engine_);
    dnnl::reorder(user, weights_).execute(stream_, user, weights_);
    stream_.wait();
  }

  void run(const std::vector<float>& x, std::vector<float>& y) {
    dnnl::memory src(src_, engine_, const_cast<float*>(x.data())), dst(dst_, engine_, y.data());
    primitive_.execute(stream_, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst}});
    stream_.wait();
  }

 private:
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  dnnl::memory::desc src_, dst_;
  dnnl::memory weights_;
  dnnl::primitive primitive_;

  // The primitive P (convolution_forward or deconvolution_forward) from src_ to dst_ with weights
  // in the layout oneDNN chooses, which it returns.
  template <class P>
  dnnl::memory::desc make(dnnl::algorithm a, const dnnl::memory::desc& weights, const dnnl::memory::dims& strides,
                          const dnnl::memory::dims& dilates, const dnnl::memory::dims& left,
                          const dnnl::memory::dims& right) {
    typename P::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, a, src_, weights, dst_, strides, dilates, left, right}, engine_);
    primitive_ = P(pd);
    return pd.weights_desc();
  }
};

}  // namespace host_bench
