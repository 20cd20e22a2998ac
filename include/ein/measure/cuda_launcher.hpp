// What the GPU timer and the CUDA tuner run eOperator kernels with: a device made current, its
// virtual architecture, a stream with two events that time what runs on it, and the driver API's
// entry points that load PTX and launch it, reached through the runtime (no libcuda is linked).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ein/codegen/kernel_schedule.hpp"
#include "ein/error.hpp"
#include "ein/runtime/cuda.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/eoperator.hpp"

namespace ein::measure {

/// A kernel loaded from PTX on a cuda_launcher's device, with the blocks and threads of its launch.
struct loaded_kernel {
  std::unique_ptr<CUmod_st, CUresult (*)(CUmodule)> module{nullptr, nullptr};
  CUfunction function = nullptr;
  std::string entry;
  unsigned grid = 0, threads = 0;
};

/// CUDA device `device` made current, with a stream, two events and the driver's entry points of
/// its own; `who` begins the error said when the driver lacks one ("cuda_tuner").
class cuda_launcher {
 public:
  cuda_launcher(int device, const std::string& who) {
    EIN_CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp p{};
    EIN_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    arch_ = "compute_" + std::to_string(p.major * 10 + p.minor);
    EIN_CUDA_CHECK(cudaStreamCreate(&stream_));
    EIN_CUDA_CHECK(cudaEventCreate(&start_));
    EIN_CUDA_CHECK(cudaEventCreate(&stop_));
    driver(load_, "cuModuleLoadData", who);
    driver(unload_, "cuModuleUnload", who);
    driver(function_, "cuModuleGetFunction", who);
    driver(launch_, "cuLaunchKernel", who);
    driver(occupancy_, "cuOccupancyMaxActiveBlocksPerMultiprocessor", who);
  }
  cuda_launcher(const cuda_launcher&) = delete;
  cuda_launcher& operator=(const cuda_launcher&) = delete;
  ~cuda_launcher() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  /// The device's virtual architecture, as NVRTC takes it ("compute_90").
  const std::string& arch() const { return arch_; }
  cudaStream_t stream() const { return stream_; }

  /// Kernel `entry` of `ptx` loaded, its grid as generated launches size it for `schedule`:
  /// the blocks that fit on the device at once, or fewer where the items need fewer.
  loaded_kernel load(const std::string& ptx, const std::string& entry, const codegen::kernel_schedule& schedule) {
    loaded_kernel k;
    k.entry = entry;
    k.threads = static_cast<unsigned>(schedule.threads);
    CUmodule module = nullptr;
    if (load_(&module, ptx.c_str()) != CUDA_SUCCESS) throw user_error("cuModuleLoadData failed");
    k.module = {module, unload_};
    if (function_(&k.function, module, entry.c_str()) != CUDA_SUCCESS)
      throw user_error("cuModuleGetFunction failed for " + entry);
    int per_multiprocessor = 0;
    if (occupancy_(&per_multiprocessor, k.function, static_cast<int>(k.threads), 0) != CUDA_SUCCESS)
      throw user_error("cuOccupancyMaxActiveBlocksPerMultiprocessor failed for " + entry);
    k.grid = runtime::launch_blocks(schedule.items, schedule.items_per_block,
                                    static_cast<unsigned>(std::max(1, per_multiprocessor) * runtime::multiprocessors()));
    return k;
  }

  /// Launches `k` on the stream with kernel arguments `args` (pointers to each argument).
  void launch(const loaded_kernel& k, std::vector<void*>& args) {
    if (launch_(k.function, k.grid, 1, 1, k.threads, 1, 1, 0, stream_, args.data(), nullptr) != CUDA_SUCCESS)
      throw user_error("cuLaunchKernel failed for " + k.entry);
  }

  /// Seconds of one call of `run`, timed with the events on the stream.
  template <class Run>
  double seconds(Run&& run) {
    EIN_CUDA_CHECK(cudaEventRecord(start_, stream_));
    run();
    EIN_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    EIN_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    EIN_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  template <class F>
  static void driver(F& f, const char* symbol, const std::string& who) {
    cudaDriverEntryPointQueryResult found{};
    void* p = nullptr;
    EIN_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p) throw user_error(who + ": the CUDA driver has no " + symbol);
    f = reinterpret_cast<F>(p);
  }

  std::string arch_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  decltype(&::cuModuleLoadData) load_ = nullptr;
  decltype(&::cuModuleUnload) unload_ = nullptr;
  decltype(&::cuModuleGetFunction) function_ = nullptr;
  decltype(&::cuLaunchKernel) launch_ = nullptr;
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy_ = nullptr;
};

}  // namespace ein::measure
