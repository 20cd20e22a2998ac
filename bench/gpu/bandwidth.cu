// The bandwidth benchmark: ein's kernels of memory-bound eOperators (bandwidth_cases.hpp, as the
// CUDA emitter writes them) against the device's copy bandwidth measured in the same run. Each
// kernel is first checked against its host loop on random inputs, then timed (median of 50 runs,
// CUDA events); bytes are the fewest it must move (each input read once, the output written
// once). Prints a table and writes JSON naming the GPU.
//
//   bench_gpu_bandwidth <results.json>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bandwidth_kernels.cuh"
#include "common/machine.hpp"
#include "ein/runtime/cuda_device.hpp"
#include "gpu_timing.hpp"

namespace gpu = ein::bench::gpu;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <results.json>\n", argv[0]);
    return 2;
  }
  if (auto status = ein::runtime::exit_without_device("bench_gpu_bandwidth")) return *status;
  try {
    auto device = gpu::describe_device();
    ein::runtime::keep_pool_memory(0);
    cudaStream_t stream = nullptr;
    EIN_CUDA_CHECK(cudaStreamCreate(&stream));
    const double copy = gpu::copy_bandwidth(std::size_t{1} << 30, stream);
    std::printf("%s (%d SMs, L2 %.0f MB): device-to-device copy %.0f GB/s (1 GiB, read + write)\n",
                device.name.c_str(), device.multiprocessors, device.l2_megabytes, copy);
    std::printf("%-24s %10s %10s %10s %8s %10s\n", "kernel", "MB moved", "ms", "GB/s", "of copy", "max_rel_err");
    std::string cases;
    bool ok = true;
    for (auto& k : bandwidth_kernels) {
      std::vector<std::unique_ptr<gpu::device_array>> arrays;
      std::vector<std::vector<float>> host;
      std::vector<void*> device_pointers, host_pointers;
      double bytes = 0;
      for (std::size_t id = 0; id < k.counts.size(); ++id) {
        auto n = static_cast<std::size_t>(k.counts[id]);
        arrays.push_back(std::make_unique<gpu::device_array>(n));
        host.push_back(id == k.output ? std::vector<float>(n) : gpu::random_values(n, 2023 + id));
        if (id == k.output)
          arrays.back()->poison();
        else
          arrays.back()->upload(host.back());
        device_pointers.push_back(arrays.back()->data());
        host_pointers.push_back(host.back().data());
        bytes += static_cast<double>(n) * sizeof(float);
      }
      k.launch(device_pointers.data(), stream);
      EIN_CUDA_CHECK(cudaStreamSynchronize(stream));
      k.host(host_pointers.data());
      double err = ein::bench::max_rel_error(arrays[k.output]->download(), host[k.output]);
      double ms = gpu::median_ms([&] { k.launch(device_pointers.data(), stream); }, stream);
      double rate = bytes / (ms * 1e-3) / 1e9;
      ok = ok && err < 1e-5;
      std::printf("%-24s %10.1f %10.4f %10.0f %7.0f%% %10.2g%s\n", k.name, bytes / 1e6, ms, rate, 100 * rate / copy, err,
                  err < 1e-5 ? "" : "  WRONG");
      char line[512];
      std::snprintf(line, sizeof line,
                    "    {\"name\": \"%s\", \"description\": \"%s\", \"bytes\": %.0f, \"ms\": %.6g, \"gb_per_s\": %.6g, "
                    "\"fraction_of_copy\": %.4f, \"max_rel_err\": %.3g}",
                    k.name, k.description, bytes, ms, rate, rate / copy, err);
      cases += (cases.empty() ? "" : ",\n") + std::string(line);
    }
    std::FILE* out = std::fopen(argv[1], "w");
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[1]);
    std::fprintf(out,
                 "{\n  \"benchmark\": \"bench/gpu/bandwidth.cu\",\n  \"gpu\": \"%s\",\n  \"multiprocessors\": %d,\n"
                 "  \"compute_capability\": %d,\n  \"cuda\": \"%s\",\n  \"utc\": \"%s\",\n"
                 "  \"timing\": \"median of 50 runs after 5 warm-ups, CUDA events; bytes: each input read once, the output "
                 "written once\",\n  \"copy_gb_per_s\": %.6g,\n  \"kernels\": [\n%s\n  ]\n}\n",
                 device.name.c_str(), device.multiprocessors, device.compute_capability, device.runtime.c_str(),
                 ein::bench::utc_now().c_str(), copy, cases.c_str());
    std::fclose(out);
    cudaStreamDestroy(stream);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
