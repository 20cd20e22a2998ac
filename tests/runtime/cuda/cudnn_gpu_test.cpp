// cuDNN's convolutions as plans run them, on a device (skipped where none is): a fused convolution
// runs what it took when tried at prepare (the fused call, or the plain calls where the fused one
// took nothing), and a full-float convolution runs no Winograd or FFT algorithm and stays within
// the 1e-5 a plan allows a float library call, against double loops on the host. Each case prints
// an "ein check:" line with what cuDNN ranked and what ran (bench/gpu/run.sh reports them).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ein/runtime/cudnn.hpp"
#include "runtime/cuda/device_cases.hpp"

namespace cudnn_gpu_test {

using ein::runtime::convolution_geometry;

// A packed geometry: NHWC tensors with a KRSC filter, or NCHW with KCRS; x of c channels and
// side h, a filter of side r, y's side from the padding and stride.
convolution_geometry packed(bool nhwc, int n, int c, int h, int k, int r, int pad, int stride = 1) {
  convolution_geometry g;
  const int p = (h + 2 * pad - r) / stride + 1;
  const auto strides = [nhwc](int* s, int channels, int side) {
    const int nchw[4] = {channels * side * side, side * side, side, 1};
    const int nhwc_[4] = {channels * side * side, 1, side * channels, channels};
    std::copy_n(nhwc ? nhwc_ : nchw, 4, s);
  };
  const int x[4] = {n, c, h, h}, y[4] = {n, k, p, p}, f[4] = {k, c, r, r};
  std::copy_n(x, 4, g.x_dims);
  std::copy_n(y, 4, g.y_dims);
  std::copy_n(f, 4, g.filter);
  strides(g.x_strides, c, h);
  strides(g.y_strides, k, p);
  g.krsc = nhwc;
  g.pad[0] = g.pad[1] = pad;
  g.stride[0] = g.stride[1] = stride;
  return g;
}

std::size_t elements(const int* dims) {
  return static_cast<std::size_t>(dims[0]) * dims[1] * dims[2] * dims[3];
}

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<float>(static_cast<double>(seed >> 11) * 0x1.0p-53 * 2 - 1);
  }
  return v;
}

// The offset of element (a, b, i, j) of a tensor with `strides`.
std::size_t at(const int* strides, int a, int b, int i, int j) {
  return static_cast<std::size_t>(a) * strides[0] + static_cast<std::size_t>(b) * strides[1] +
         static_cast<std::size_t>(i) * strides[2] + static_cast<std::size_t>(j) * strides[3];
}

// The forward convolution (y from x) or, for a backward-data geometry, the transposed one (x
// from y), in double: `in` read, the result returned in the written tensor's layout.
std::vector<double> host_convolution(const convolution_geometry& g, const std::vector<float>& in,
                                     const std::vector<float>& w) {
  std::vector<double> out(g.forward ? elements(g.y_dims) : elements(g.x_dims), 0.0);
  const int c_n = g.x_dims[1], r_n = g.filter[2], s_n = g.filter[3];
  for (int n = 0; n < g.y_dims[0]; ++n)
    for (int k = 0; k < g.y_dims[1]; ++k)
      for (int p = 0; p < g.y_dims[2]; ++p)
        for (int q = 0; q < g.y_dims[3]; ++q)
          for (int c = 0; c < c_n; ++c)
            for (int r = 0; r < r_n; ++r)
              for (int s = 0; s < s_n; ++s) {
                const int i = p * g.stride[0] - g.pad[0] + r, j = q * g.stride[1] - g.pad[1] + s;
                if (i < 0 || j < 0 || i >= g.x_dims[2] || j >= g.x_dims[3]) continue;
                const double wt = w[g.krsc ? ((static_cast<std::size_t>(k) * r_n + r) * s_n + s) * c_n + c
                                           : ((static_cast<std::size_t>(k) * c_n + c) * r_n + r) * s_n + s];
                if (g.forward)
                  out[at(g.y_strides, n, k, p, q)] += in[at(g.x_strides, n, c, i, j)] * wt;
                else
                  out[at(g.x_strides, n, c, i, j)] += in[at(g.y_strides, n, k, p, q)] * wt;
              }
  return out;
}

// max |x - ref| / max |ref|.
double relative_error(const std::vector<float>& x, const std::vector<double>& ref) {
  double scale = 0, err = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    scale = std::max(scale, std::abs(ref[i]));
    err = std::max(err, std::abs(static_cast<double>(x[i]) - ref[i]));
  }
  return scale > 0 ? err / scale : err;
}

struct device_floats {
  float* data = nullptr;
  explicit device_floats(const std::vector<float>& v) {
    EIN_CUDA_CHECK(cudaMalloc(&data, std::max<std::size_t>(v.size(), 1) * sizeof(float)));
    EIN_CUDA_CHECK(cudaMemcpy(data, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  device_floats(const device_floats&) = delete;
  ~device_floats() { cudaFree(data); }
  std::vector<float> values(std::size_t n) const {
    std::vector<float> v(n);
    EIN_CUDA_CHECK(cudaMemcpy(v.data(), data, n * sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  }
};

// A stream and a cuDNN handle bound to it, as a plan's state has them.
struct stream_handle {
  cudaStream_t stream = nullptr;
  std::unique_ptr<ein::runtime::cudnn_handle> handle;
  stream_handle() {
    EIN_CUDA_CHECK(cudaStreamCreate(&stream));
    handle = std::make_unique<ein::runtime::cudnn_handle>(stream);
  }
  ~stream_handle() {
    handle.reset();
    cudaStreamDestroy(stream);
  }
};

// cuDNN's first-ranked forward algorithm for the state's descriptors (heuristics), and whether
// it transforms its operands.
std::string first_ranked(cudnnHandle_t h, const ein::runtime::cudnn_convolution& c) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  EIN_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv, c.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                         &found, perf));
  if (found == 0) return "none";
  return std::to_string(perf[0].algo) + (ein::runtime::transforms_operands(perf[0].algo) ? " (Winograd or FFT)" : "");
}

TEST_CASE("cuDNN on the GPU: a fused convolution runs what it took at prepare and equals the host loops") {
  if (ein_test::skip_without_device()) return;
  struct fused_case {
    const char* name;
    convolution_geometry g;
    bool relu, residual;
  };
  const fused_case cases[] = {{"NHWC 3x3 [2,8,8,16]->16 + bias, ReLU (conv_epilogue)", packed(true, 2, 16, 8, 16, 3, 1), true, false},
                              {"NHWC 3x3 [2,8,8,16]->16 + bias + residual, ReLU", packed(true, 2, 16, 8, 16, 3, 1), true, true},
                              {"NHWC 1x1 [1,14,14,64]->32 + bias", packed(true, 1, 64, 14, 32, 1, 0), false, false},
                              {"NCHW 5x5 [1,32,28,28]->64 + bias, ReLU", packed(false, 1, 32, 28, 64, 5, 2), true, false}};
  stream_handle sh;
  for (const auto& k : cases) {
    CAPTURE(k.name);
    convolution_geometry g = k.g;
    g.fused = true;
    g.relu = k.relu;
    const ein::runtime::cudnn_convolution conv(sh.handle->get(), g);
    const auto x = random_values(elements(g.x_dims), 1), w = random_values(elements(g.filter), 2),
               bias = random_values(static_cast<std::size_t>(g.y_dims[1]), 3), z = random_values(elements(g.y_dims), 4);
    device_floats dx(x), dw(w), dbias(bias), dz(z), dy(std::vector<float>(elements(g.y_dims), -7.0f));
    const float alpha = 1, alpha2 = k.residual ? 1.0f : 0.0f;
    conv.forward_bias_activation(sh.handle->get(), &alpha, dx.data, dw.data, &alpha2, k.residual ? dz.data : dy.data,
                                 dbias.data, dy.data);
    EIN_CUDA_CHECK(cudaStreamSynchronize(sh.stream));
    auto ref = host_convolution(g, x, w);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const auto f = static_cast<std::size_t>(g.krsc ? i % g.y_dims[1] : i / (g.y_dims[2] * g.y_dims[3]) % g.y_dims[1]);
      ref[i] += bias[f] + (k.residual ? z[i] : 0.0);
      if (k.relu) ref[i] = std::max(ref[i], 0.0);
    }
    const double err = relative_error(dy.values(ref.size()), ref);
    std::printf("ein check: fused convolution %s: %s; max_rel_err %.2g\n", k.name,
                conv.fused_call ? ("cudnnConvolutionBiasActivationForward took algorithm " +
                                   std::to_string(conv.fused_algo) + " at prepare")
                                      .c_str()
                                : "the fused call took no algorithm at prepare: cuDNN's plain calls",
                err);
    CHECK(err <= 1e-5);
  }
}

TEST_CASE("cuDNN on the GPU: full float runs no Winograd or FFT algorithm and stays within 1e-5") {
  if (ein_test::skip_without_device()) return;
  struct full_float_case {
    const char* name;
    convolution_geometry g;
  };
  convolution_geometry transposed = packed(false, 2, 32, 16, 64, 4, 1, 2);  // y [2,64,8,8] -> x [2,32,16,16]
  transposed.forward = false;
  const full_float_case cases[] = {{"NHWC 3x3 [1,56,56,64]->64", packed(true, 1, 64, 56, 64, 3, 1)},
                                   {"NCHW 3x3 [2,128,28,28]->128", packed(false, 2, 128, 28, 128, 3, 1)},
                                   {"NCHW 5x5 [4,32,56,56]->32", packed(false, 4, 32, 56, 32, 5, 2)},
                                   {"NCHW transposed 4x4/2 [2,64,8,8]->32", transposed}};
  stream_handle sh;
  for (const auto& k : cases) {
    CAPTURE(k.name);
    const convolution_geometry& g = k.g;
    const auto& in_dims = g.forward ? g.x_dims : g.y_dims;
    const auto& out_dims = g.forward ? g.y_dims : g.x_dims;
    const auto in = random_values(elements(in_dims), 5), w = random_values(elements(g.filter), 6);
    const auto ref = host_convolution(g, in, w);
    for (auto choice : {ein::runtime::algorithm_choice::heuristic, ein::runtime::algorithm_choice::fastest}) {
      const bool heuristic = choice == ein::runtime::algorithm_choice::heuristic;
      CAPTURE(heuristic);
      const ein::runtime::cudnn_convolution conv(sh.handle->get(), g, choice);
      device_floats din(in), dw(w), dout(std::vector<float>(elements(out_dims), -7.0f));
      const float one = 1, zero = 0;
      if (g.forward) {
        CHECK(!ein::runtime::transforms_operands(conv.forward_algo));
        EIN_CUDNN_CHECK(cudnnConvolutionForward(sh.handle->get(), &one, conv.x, din.data, conv.w, dw.data, conv.conv,
                                                conv.forward_algo, conv.workspace, conv.workspace_size, &zero, conv.y,
                                                dout.data));
      } else {
        CHECK(!ein::runtime::transforms_operands(conv.backward_data_algo));
        EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(sh.handle->get(), &one, conv.w, dw.data, conv.y, din.data,
                                                     conv.conv, conv.backward_data_algo, conv.workspace,
                                                     conv.workspace_size, &zero, conv.x, dout.data));
      }
      EIN_CUDA_CHECK(cudaStreamSynchronize(sh.stream));
      const double err = relative_error(dout.values(ref.size()), ref);
      const int ran = g.forward ? static_cast<int>(conv.forward_algo) : static_cast<int>(conv.backward_data_algo);
      std::printf("ein check: full float %s (%s): cuDNN ranks %s first, ein runs algorithm %d; max_rel_err %.2g\n",
                  k.name, heuristic ? "heuristics" : "measured", g.forward ? first_ranked(sh.handle->get(), conv).c_str() : "-",
                  ran, err);
      CHECK(err <= 1e-5);
    }
  }
}

}  // namespace cudnn_gpu_test
