// Host stand-ins for the CUDA built-ins that generated eOperator kernels use, so that the very
// kernel text nvcc compiles runs on the CPU: the blocks of a launch one after another, the threads
// of a block one after another (a kernel without barriers) or as threads of their own that meet
// at __syncthreads (a tiled kernel); __shared__ arrays are statics, shared by a block's threads.
#pragma once

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct ein_emulated_dim3 {
  unsigned x = 0, y = 1, z = 1;
};
inline thread_local ein_emulated_dim3 threadIdx, blockIdx;
inline ein_emulated_dim3 blockDim, gridDim;

#define __global__
#define __launch_bounds__(...)
#define __shared__ static

namespace ein_emulate {
inline thread_local std::barrier<>* block_barrier = nullptr;
}  // namespace ein_emulate

/// Waits for every thread of the block; a kernel launched without barriers must not call it.
inline void __syncthreads() {
  if (!ein_emulate::block_barrier) {
    std::fprintf(stderr, "__syncthreads() in a kernel emulated as sequential threads\n");
    std::abort();
  }
  ein_emulate::block_barrier->arrive_and_wait();
}

namespace ein_emulate {

/// Runs `kernel<<<blocks, threads>>>(args...)`: with `barriers`, each block's threads run at once
/// and meet at __syncthreads; without, one after another.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, bool barriers, Args... args) {
  gridDim = {blocks, 1, 1};
  blockDim = {threads, 1, 1};
  for (unsigned b = 0; b < blocks; ++b) {
    if (!barriers) {
      blockIdx = {b, 0, 0};
      for (unsigned t = 0; t < threads; ++t) {
        threadIdx = {t, 0, 0};
        kernel(args...);
      }
      continue;
    }
    std::barrier<> barrier(threads);
    std::vector<std::jthread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        blockIdx = {b, 0, 0};
        threadIdx = {t, 0, 0};
        block_barrier = &barrier;
        kernel(args...);
      });
  }
}

}  // namespace ein_emulate
