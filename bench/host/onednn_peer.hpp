// The host benchmark's peer: one NHWC convolution or transposed convolution as oneDNN runs it,
// its weights reordered once into the layout oneDNN chooses.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <vector>

namespace host_bench {

/// A convolution (or, `transposed`, a transposed convolution) of NHWC input [n, h, w, c] with
/// filters K[r, s, f, c] (ein's rsfc), stride and padding on both axes, into NHWC [n, oh, ow, f].
struct conv_shape {
  std::int64_t n, h, w, c, f, r, s, stride, pad;
  bool transposed;
  std::int64_t oh() const { return transposed ? (h - 1) * stride - 2 * pad + r : (h + 2 * pad - r) / stride + 1; }
  std::int64_t ow() const { return transposed ? (w - 1) * stride - 2 * pad + s : (w + 2 * pad - s) / stride + 1; }
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
        weights{shape.f, shape.c, shape.r, shape.s}, strides{shape.stride, shape.stride};
    // The right padding that gives ein's output extent (a stride may leave input rows unread).
    const dnnl::memory::dims left{shape.pad, shape.pad},
        right{shape.transposed ? shape.pad : (shape.oh() - 1) * shape.stride + shape.r - shape.h - shape.pad,
              shape.transposed ? shape.pad : (shape.ow() - 1) * shape.stride + shape.s - shape.w - shape.pad};
    src_ = md(src, f32, tag::nhwc);
    dst_ = md(dst, f32, tag::nhwc);
    const md any(weights, f32, tag::any);
    const md chosen = shape.transposed ? make<dnnl::deconvolution_forward>(dnnl::algorithm::deconvolution_direct, any,
                                                                          strides, left, right)
                                       : make<dnnl::convolution_forward>(dnnl::algorithm::convolution_direct, any,
                                                                         strides, left, right);
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
                          const dnnl::memory::dims& left, const dnnl::memory::dims& right) {
    typename P::primitive_desc pd({dnnl::prop_kind::forward_inference, a, src_, weights, dst_, strides, left, right},
                                  engine_);
    primitive_ = P(pd);
    return pd.weights_desc();
  }
};

}  // namespace host_bench
