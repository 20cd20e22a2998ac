// A bfloat16 product of a host plan on oneDNN's matmul primitive: bfloat16 operands and result,
// accumulated in float and rounded once as it is stored, as an eOperator rounds (oneDNN 2.6's C
// API has a float GEMM only, dnnl_sgemm).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "ein/runtime/onednn.hpp"
#include "ein/runtime/onednn_matmul_geometry.hpp"

namespace ein::runtime {

/// The primitive of one bfloat16 product step, built once (a plan keeps it in a function-local
/// static) and run on the calling thread's stream. Where oneDNN has no bfloat16 matmul on the CPU
/// that runs it (AVX2: the header was generated on a machine with AVX-512 BF16), the product runs
/// in float, its operands converted and its result rounded to bfloat16 once: the same values.
class onednn_matmul {
 public:
  explicit onednn_matmul(const onednn_matmul_geometry& g)
      : a_(desc(g.batch, g.m, g.k, g.a_strides)), b_(desc(g.batch, g.k, g.n, g.b_strides)),
        c_(desc(g.batch, g.m, g.n, g.c_strides)) {
    attr_.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (g.alpha != 1) attr_.set_output_scales(0, {g.alpha});  // on the float sum, before it is rounded
    try {
      make(a_, b_, c_);
    } catch (const dnnl::error&) {
      converts_ = true;
      const auto f32 = dnnl::memory::data_type::f32;
      float_a_ = retyped(a_, f32), float_b_ = retyped(b_, f32), float_c_ = retyped(c_, f32);
      make(float_a_, float_b_, float_c_);
      const auto& e = onednn_engine();
      a_to_float_ = dnnl::reorder(dnnl::reorder::primitive_desc(e, a_, e, float_a_));
      b_to_float_ = dnnl::reorder(dnnl::reorder::primitive_desc(e, b_, e, float_b_));
      c_from_float_ = dnnl::reorder(dnnl::reorder::primitive_desc(e, float_c_, e, c_));
    }
  }

  /// c = alpha · a · b, each pointing at its first element.
  void run(const void* a, const void* b, void* c) const {
    auto memory = [](const dnnl::memory::desc& d, const void* p) {
      return dnnl::memory(d, onednn_engine(), const_cast<void*>(p));
    };
    dnnl::memory pad = memory(scratchpad_, onednn_scratchpad(scratchpad_.get_size())), user_a = memory(a_, a),
                 user_b = memory(b_, b), user_c = memory(c_, c);
    if (!converts_) {
      primitive_.execute(onednn_stream(),
                         {{DNNL_ARG_SRC, user_a}, {DNNL_ARG_WEIGHTS, user_b}, {DNNL_ARG_DST, user_c}, {DNNL_ARG_SCRATCHPAD, pad}});
      onednn_stream().wait();
      return;
    }
    dnnl::memory fa = memory(float_a_, onednn_scratchpad(float_a_.get_size(), 1)),
                 fb = memory(float_b_, onednn_scratchpad(float_b_.get_size(), 3)),
                 fc = memory(float_c_, onednn_scratchpad(float_c_.get_size(), 2));
    a_to_float_.execute(onednn_stream(), user_a, fa);
    b_to_float_.execute(onednn_stream(), user_b, fb);
    primitive_.execute(onednn_stream(),
                       {{DNNL_ARG_SRC, fa}, {DNNL_ARG_WEIGHTS, fb}, {DNNL_ARG_DST, fc}, {DNNL_ARG_SCRATCHPAD, pad}});
    c_from_float_.execute(onednn_stream(), fc, user_c);
    onednn_stream().wait();
  }

  /// The name of the implementation oneDNN chose, e.g. `brg:avx512_core_bf16`.
  const std::string& implementation() const { return implementation_; }

  /// Whether the product runs in float, converted (oneDNN has no bfloat16 matmul on this CPU).
  bool converts() const { return converts_; }

 private:
  // A (batch, rows, cols) bfloat16 matrix; a batch stride of 0 becomes oneDNN's broadcast, a
  // batch dimension of 1. A dimension of extent 1 is given a stride past the others, which oneDNN
  // asks of a layout even where the stride is never used.
  static dnnl::memory::desc desc(std::int64_t batch, std::int64_t rows, std::int64_t cols,
                                 const std::int64_t (&strides)[3]) {
    const bool shared = strides[0] == 0;
    const std::int64_t past = std::max((rows - 1) * strides[1] + (cols - 1) * strides[2] + 1, std::int64_t{1});
    return {{shared ? 1 : batch, rows, cols},
            dnnl::memory::data_type::bf16,
            {shared || batch == 1 ? past : strides[0], rows == 1 ? cols * strides[2] : strides[1],
             cols == 1 ? rows * strides[1] : strides[2]}};
  }

  // `d`'s dims and strides with elements of type `t`.
  static dnnl::memory::desc retyped(const dnnl::memory::desc& d, dnnl::memory::data_type t) {
    const auto& blocking = d.data.format_desc.blocking;
    return {d.dims(), t, dnnl::memory::dims(blocking.strides, blocking.strides + d.data.ndims)};
  }

  void make(const dnnl::memory::desc& a, const dnnl::memory::desc& b, const dnnl::memory::desc& c) {
    const dnnl::matmul::primitive_desc pd({a, b, c}, attr_, onednn_engine());
    primitive_ = dnnl::matmul(pd);
    scratchpad_ = pd.scratchpad_desc();
    implementation_ = pd.impl_info_str();
  }

  dnnl::memory::desc a_, b_, c_, float_a_, float_b_, float_c_, scratchpad_;
  dnnl::primitive_attr attr_;
  dnnl::primitive primitive_;
  dnnl::reorder a_to_float_, b_to_float_, c_from_float_;  // of a converted product
  std::string implementation_;
  bool converts_ = false;
};

}  // namespace ein::runtime
