// The GPU baseline benchmark, C++ side: EinNet's five cases (paper_cases.hpp) as ein's searched
// cuda plans (ein::prepare, weights transformed once; run, and replayed as a CUDA graph:
// prepared.capture) and as cuDNN running the original operator
// on layouts it accepts, with the fastest algorithm cudnnFind… measures (full float: no TF32).
// Each case gets random inputs; every result is the median of 50 runs (CUDA events) after 5
// warm-ups; ein's outputs are compared with cuDNN's. Writes the inputs and ein's outputs as raw
// float32 files and manifest.json into the work folder, for baseline.py (PyTorch eager and
// torch.compile on the same inputs).
//
//   bench_gpu_paper_cases <work folder>
#include <cudnn.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/machine.hpp"
#include "ein_generated/bench_conv3x3.hpp"
#include "ein_generated/bench_conv3x3_conv1x1.hpp"
#include "ein_generated/bench_conv5x5.hpp"
#include "ein_generated/bench_conv_transpose.hpp"
#include "ein_generated/bench_g2bmm.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "ein/runtime/cudnn.hpp"
#include "gpu_timing.hpp"
#include "paper_cases.hpp"

namespace {

namespace gpu = ein::bench::gpu;
using json = nlohmann::json;

// A tensor of a case: its name, shape (as ein's program declares it) and values.
struct tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> host;
  std::unique_ptr<gpu::device_array> device;

  std::size_t count() const {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
};

// `v` of shape `shape` with its dimensions in the order `order` (result dimension d is the
// source's dimension order[d]): a host relayout for the library's layouts.
std::vector<float> permuted(const std::vector<float>& v, const std::vector<std::int64_t>& shape,
                            const std::vector<int>& order) {
  std::size_t rank = shape.size();
  std::vector<std::int64_t> stride(rank, 1), out_shape(rank);
  for (std::size_t d = rank - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  for (std::size_t d = 0; d < rank; ++d) out_shape[d] = shape[order[d]];
  std::vector<float> r(v.size());
  std::vector<std::int64_t> at(rank, 0);
  for (std::size_t k = 0; k < r.size(); ++k) {
    std::int64_t from = 0;
    for (std::size_t d = 0; d < rank; ++d) from += at[d] * stride[order[d]];
    r[k] = v[static_cast<std::size_t>(from)];
    for (std::size_t d = rank; d-- > 0;) {
      if (++at[d] < out_shape[d]) break;
      at[d] = 0;
    }
  }
  return r;
}

// The inverse of permuted(..., order): the dimension order that undoes `order`.
std::vector<int> inverse(const std::vector<int>& order) {
  std::vector<int> r(order.size());
  for (std::size_t d = 0; d < order.size(); ++d) r[static_cast<std::size_t>(order[d])] = static_cast<int>(d);
  return r;
}

void write_file(const std::string& path, const std::vector<float>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// One cuDNN convolution of the baseline: its geometry, the operands as cuDNN reads them, and the
// output as ein's layout (from cuDNN's through `to_ein`).
struct library_call {
  std::string layout;
  ein::runtime::convolution_geometry geometry;
  std::vector<float> x, w;  // forward: x and w; backward data: dy and w
  std::vector<std::int64_t> y_shape;
  std::vector<int> to_ein;  // the dimension order from cuDNN's output to ein's
};

// Runs and times the calls (one after another, as one operator when there are several) with the
// algorithms cudnnFind… chooses; returns the median and each output in ein's layout.
json time_cudnn(cudnnHandle_t handle, cudaStream_t s, const std::vector<library_call>& calls,
                std::vector<std::vector<float>>& outputs) {
  struct prepared {
    bool forward = true;
    std::unique_ptr<ein::runtime::cudnn_convolution> conv;
    std::unique_ptr<gpu::device_array> x, w, y;
  };
  std::vector<prepared> run;
  json algorithms = json::array();
  for (auto& c : calls) {
    prepared p;
    p.forward = c.geometry.forward;
    std::size_t y_count = 1;
    for (auto d : c.y_shape) y_count *= static_cast<std::size_t>(d);
    p.x = std::make_unique<gpu::device_array>(c.x.size());
    p.w = std::make_unique<gpu::device_array>(c.w.size());
    p.y = std::make_unique<gpu::device_array>(y_count);
    p.x->upload(c.x);
    p.w->upload(c.w);
    p.conv = std::make_unique<ein::runtime::cudnn_convolution>(handle, c.geometry, ein::runtime::algorithm_choice::fastest);
    algorithms.push_back(c.geometry.forward ? static_cast<int>(p.conv->forward_algo)
                                            : static_cast<int>(p.conv->backward_data_algo));
    run.push_back(std::move(p));
  }
  const float one = 1, zero = 0;
  auto all = [&] {
    for (auto& p : run) {
      auto& c = *p.conv;
      if (p.forward)
        EIN_CUDNN_CHECK(cudnnConvolutionForward(handle, &one, c.x, p.x->data(), c.w, p.w->data(), c.conv, c.forward_algo,
                                                c.workspace, c.workspace_size, &zero, c.y, p.y->data()));
      else
        EIN_CUDNN_CHECK(cudnnConvolutionBackwardData(handle, &one, c.w, p.w->data(), c.y, p.x->data(), c.conv,
                                                     c.backward_data_algo, c.workspace, c.workspace_size, &zero, c.x,
                                                     p.y->data()));
    }
  };
  for (auto& p : run) p.y->poison();
  all();
  EIN_CUDA_CHECK(cudaStreamSynchronize(s));
  for (std::size_t k = 0; k < calls.size(); ++k)
    outputs.push_back(permuted(run[k].y->download(), calls[k].y_shape, calls[k].to_ein));
  double ms = gpu::median_ms(all, s);
  std::string layouts;
  for (auto& c : calls) layouts += (layouts.empty() ? "" : " + ") + c.layout;
  return {{"layout", layouts}, {"algorithms", algorithms}, {"ms", ms}};
}

// The steps a prepared run calls, each a kernel launch or a library call (which may launch more):
// the lines of the plan's description that name a step, less the weight transforms.
std::size_t run_steps(std::string_view description) {
  std::size_t n = 0;
  for (auto at = description.find("\n  "); at != std::string_view::npos; at = description.find("\n  ", at + 1)) {
    std::string_view line = description.substr(at + 1, description.find('\n', at + 1) - at - 1);
    n += line.find("[weight transform]") == std::string_view::npos;
  }
  return n;
}

// A case: ein's program object, its tensors in ein's layouts, and the cuDNN variants that compute
// its outputs (each a list of calls, one per output).
template <class Program>
json run_case(const std::string& name, const Program& net, const std::string& work, cudaStream_t s,
              cudnnHandle_t handle, const std::function<std::vector<std::vector<library_call>>(
                                        const std::map<std::string, std::vector<float>>&)>& cudnn_variants,
              const json& paper) {
  ein::ir::program p = ein::reify(net, name);
  std::vector<tensor> tensors;
  std::uint64_t seed = 2023;
  json files = json::array();
  std::map<std::string, std::vector<float>> values;
  std::vector<ein::runtime::binding> weights, run_bindings;
  for (auto& t : p.tensors) {
    tensor x{t.name, t.shape, {}, nullptr};
    x.host = gpu::random_values(x.count(), seed++);
    x.device = std::make_unique<gpu::device_array>(x.count());
    x.device->upload(x.host);
    write_file(work + "/" + name + "." + t.name + ".bin", x.host);
    files.push_back({{"name", t.name}, {"shape", t.shape}, {"role", t.role == ein::ir::tensor_role::weight ? "weight" : "input"},
                     {"file", name + "." + t.name + ".bin"}});
    values[t.name] = x.host;
    (t.role == ein::ir::tensor_role::weight ? weights : run_bindings)
        .emplace_back(t.name, static_cast<const float*>(x.device->data()));
    tensors.push_back(std::move(x));
  }
  std::vector<tensor> outputs;
  json output_files = json::array();
  for (auto& o : p.outputs) {
    auto* d = p.find_definition(o);
    tensor y{o, d->value->shape(), {}, nullptr};
    y.device = std::make_unique<gpu::device_array>(y.count());
    y.device->poison();
    run_bindings.emplace_back(o, y.device->data());
    outputs.push_back(std::move(y));
  }
  auto prepared = ein::prepare(net, ein::runtime::bindings(weights), s);
  ein::runtime::bindings bound(run_bindings);
  prepared.run(bound, s);
  EIN_CUDA_CHECK(cudaStreamSynchronize(s));
  for (auto& y : outputs) {
    y.host = y.device->download();
    write_file(work + "/" + name + "." + y.name + ".ein.bin", y.host);
    output_files.push_back({{"name", y.name}, {"shape", y.shape}, {"file", name + "." + y.name + ".ein.bin"}});
  }
  double ein_ms = gpu::median_ms([&] { prepared.run(bound, s); }, s);
  // The same run captured into a CUDA graph and replayed (one launch): equal to the run, timed alike.
  auto graph = prepared.capture(bound);
  for (auto& y : outputs) y.device->poison();
  graph.replay(s);
  EIN_CUDA_CHECK(cudaStreamSynchronize(s));
  double graph_err = 0;
  for (auto& y : outputs) graph_err = std::max(graph_err, ein::bench::max_rel_error(y.device->download(), y.host));
  double graph_ms = gpu::median_ms([&] { graph.replay(s); }, s);
  using plan = ein::runtime::generated_plan<std::remove_cvref_t<Program>>;
  json result = {{"name", name},         {"plan", std::string(plan::description)},
                 {"tensors", files},     {"outputs", output_files},
                 {"ein_ms", ein_ms},     {"ein_graph_ms", graph_ms},
                 {"ein_graph_max_rel_err_vs_run", graph_err}, {"ein_run_steps", run_steps(plan::description)},
                 {"paper_a100", paper},  {"ein_tolerance", plan::tolerance}};
  json library = json::array();
  double best = 0;
  for (auto& calls : cudnn_variants(values)) {
    std::vector<std::vector<float>> library_outputs;
    json v = time_cudnn(handle, s, calls, library_outputs);
    double err = 0;
    for (std::size_t k = 0; k < outputs.size(); ++k)
      err = std::max(err, ein::bench::max_rel_error(outputs[k].host, library_outputs[k]));
    v["max_rel_err_ein_vs_library"] = err;
    best = best == 0 ? v["ms"].get<double>() : std::min(best, v["ms"].get<double>());
    library.push_back(v);
  }
  result["cudnn"] = library;
  if (best > 0) result["cudnn_best_ms"] = best;
  std::printf("%-16s ein %9.4f ms (graph %9.4f ms, %zu steps)   cuDNN %s\n", name.c_str(), ein_ms, graph_ms,
              run_steps(plan::description),
              best > 0 ? (std::to_string(best) + " ms").c_str() : "n/a (no library operator)");
  std::fflush(stdout);
  return result;
}

// The geometry of a 2-D convolution for cuDNN: x (n, c, h, w) and y (n, k, p, q) in NHWC or NCHW.
ein::runtime::convolution_geometry geometry(bool forward, bool nhwc, std::array<int, 4> x, std::array<int, 4> y,
                                            std::array<int, 4> filter, int pad, int stride) {
  ein::runtime::convolution_geometry g;
  g.forward = forward;
  g.krsc = nhwc;
  auto strides = [&](const std::array<int, 4>& d, int* s) {
    if (nhwc) {
      s[0] = d[1] * d[2] * d[3], s[1] = 1, s[2] = d[3] * d[1], s[3] = d[1];
    } else {
      s[0] = d[1] * d[2] * d[3], s[1] = d[2] * d[3], s[2] = d[3], s[3] = 1;
    }
  };
  for (int d = 0; d < 4; ++d) g.x_dims[d] = x[d], g.y_dims[d] = y[d], g.filter[d] = filter[d];
  strides(x, g.x_strides);
  strides(y, g.y_strides);
  g.pad[0] = g.pad[1] = pad;
  g.stride[0] = g.stride[1] = stride;
  return g;
}

// A forward 2-D convolution of NHWC data and a (r, s, f, c) filter, pad `pad`, as cuDNN runs it
// in NHWC with a KRSC filter and in NCHW with a KCRS filter.
std::vector<library_call> nhwc_convolution(const std::vector<float>& x, const std::vector<float>& k, int n, int hw,
                                           int c, int f, int r, int pad, const std::string& tag) {
  std::vector<std::int64_t> x_shape{n, hw, hw, c}, k_shape{r, r, f, c};
  int out = hw + 2 * pad - r + 1;
  library_call nhwc{tag + "NHWC/KRSC", geometry(true, true, {n, c, hw, hw}, {n, f, out, out}, {f, c, r, r}, pad, 1), x,
                    permuted(k, k_shape, {2, 0, 1, 3}), {n, out, out, f}, {0, 1, 2, 3}};
  library_call nchw{tag + "NCHW/KCRS", geometry(true, false, {n, c, hw, hw}, {n, f, out, out}, {f, c, r, r}, pad, 1),
                    permuted(x, x_shape, {0, 3, 1, 2}), permuted(k, k_shape, {2, 3, 0, 1}), {n, f, out, out},
                    {0, 2, 3, 1}};
  return {nhwc, nchw};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <work folder>\n", argv[0]);
    return 2;
  }
  if (auto status = ein::runtime::exit_without_device("bench_gpu_paper_cases")) return *status;
  try {
    const std::string work = argv[1];
    auto device = gpu::describe_device();
    ein::runtime::keep_pool_memory(0);
    cudaStream_t s = nullptr;
    EIN_CUDA_CHECK(cudaStreamCreate(&s));
    ein::runtime::cudnn_handle cudnn;
    EIN_CUDNN_CHECK(cudnnSetStream(cudnn.get(), s));
    json cases = json::array();
    auto paper = [](double before, double after, const char* note) {
      return json{{"before_ms", before}, {"after_ms", after}, {"ratio", before / after}, {"note", note}};
    };
    namespace bc = bench_cases;
    cases.push_back(run_case(
        "conv3x3", bc::conv3x3::net, work, s, cudnn.get(),
        [](const auto& v) {
          auto calls = nhwc_convolution(v.at("A"), v.at("K"), 1, 7, 512, 512, 3, 1, "");
          return std::vector<std::vector<library_call>>{{calls[0]}, {calls[1]}};
        },
        paper(0.126, 0.0487, "cuDNN picked Winograd")));
    cases.push_back(run_case(
        "conv_transpose", bc::conv_transpose::net, work, s, cudnn.get(),
        [](const auto& v) {
          // backward data: dy = T in NCHW [16, 448, 2, 2], w (k=448, c=256, 4, 4) from K[kh, kw, f, c]
          library_call call{"NCHW/KCRS backward data",
                            geometry(false, false, {16, 256, 4, 4}, {16, 448, 2, 2}, {448, 256, 4, 4}, 1, 2),
                            permuted(v.at("T"), {16, 2, 2, 448}, {0, 3, 1, 2}),
                            permuted(v.at("K"), {4, 4, 256, 448}, {3, 2, 0, 1}),
                            {16, 256, 4, 4},
                            {0, 2, 3, 1}};
          return std::vector<std::vector<library_call>>{{call}};
        },
        paper(0.2466, 0.0480, "cuDNN implicit GEMM")));
    cases.push_back(run_case(
        "conv5x5", bc::conv5x5::net, work, s, cudnn.get(),
        [](const auto& v) {
          library_call call{"NCHW/KCRS", geometry(true, false, {16, 32, 224, 224}, {16, 1, 224, 224}, {1, 32, 5, 5}, 2, 1),
                            v.at("B"), v.at("K"), {16, 1, 224, 224}, {0, 1, 2, 3}};
          return std::vector<std::vector<library_call>>{{call}};
        },
        paper(0.9535, 0.5993, "cuDNN FFT; the artifact's after time leaves out the eOperator")));
    cases.push_back(run_case(
        "g2bmm", bc::g2bmm::net, work, s, cudnn.get(), [](const auto&) { return std::vector<std::vector<library_call>>{}; },
        paper(13.02, 2.862, "the artifact's after time leaves out the relayout")));
    cases.push_back(run_case(
        "conv3x3_conv1x1", bc::conv3x3_conv1x1::net, work, s, cudnn.get(),
        [](const auto& v) {
          auto c3 = nhwc_convolution(v.at("X"), v.at("K3"), 1, 7, 512, 512, 3, 1, "3x3 ");
          auto c1 = nhwc_convolution(v.at("X"), v.at("K1"), 1, 7, 512, 512, 1, 0, "1x1 ");
          return std::vector<std::vector<library_call>>{{c3[0], c1[0]}, {c3[1], c1[1]}};
        },
        json{{"note", "Figure 3(a): no time in Table 3"}}));
    json manifest = {{"benchmark", "bench/gpu/paper_cases.cpp"},
                     {"gpu", device.name},
                     {"multiprocessors", device.multiprocessors},
                     {"compute_capability", device.compute_capability},
                     {"cuda", device.runtime},
                     {"cudnn", cudnnGetVersion()},
                     {"utc", ein::bench::utc_now()},
                     {"timing", "median of 50 runs after 5 warm-ups, CUDA events; ein: a prepared plan (weights "
                                "transformed once), run (ein_ms) and replayed as a CUDA graph (ein_graph_ms); cuDNN: the "
                                "fastest algorithm cudnnFind... measures, full float"},
                     {"cases", cases}};
    std::ofstream(work + "/manifest.json") << manifest.dump(2) << "\n";
    cudaStreamDestroy(s);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
