// ein::profile for cuda plans: each step timed with a pair of CUDA events on the stream it runs on.
// Include it beside ein/profile.hpp in a .cpp file of a target that links CUDA::cudart.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/profile.hpp"
#include "ein/runtime/cuda_check.hpp"
#include "ein/runtime/plan.hpp"

namespace ein::detail {

// Events are recorded while the run is issued and read once it is done (finish): the host does
// not wait between steps, so what a step's pair of events brackets is its own work on the device
// (and the launch gaps the stream leaves, which a run has too).
template <>
class step_timer<runtime::backend::cuda> final : public runtime::step_observer {
 public:
  step_timer() = default;
  step_timer(const step_timer&) = delete;
  step_timer& operator=(const step_timer&) = delete;
  ~step_timer() {
    for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
  }

  template <class F>
  double run_ms(F&& run, runtime::stream s) {
    EIN_CUDA_CHECK(cudaEventRecord(event(0), s));
    run();
    EIN_CUDA_CHECK(cudaEventRecord(event(1), s));
    return elapsed_ms(0, 1);
  }
  void begin(std::size_t step, runtime::stream s) override {
    if (ended_ != order_.size())
      throw internal_error("ein::profile: step " + std::to_string(step) + " began inside another");
    order_.push_back(step);
    EIN_CUDA_CHECK(cudaEventRecord(event(2 * order_.size()), s));
  }
  void end(std::size_t step, runtime::stream s) override {
    if (order_.empty() || order_.back() != step || ended_ + 1 != order_.size())
      throw internal_error("ein::profile: step " + std::to_string(step) + " ended without beginning");
    EIN_CUDA_CHECK(cudaEventRecord(event(2 * order_.size() + 1), s));
    ++ended_;
  }

  void restart() {
    order_.clear();
    ms_.clear();
    ended_ = 0;
  }
  void finish() {
    ms_.clear();
    for (std::size_t k = 1; k <= ended_; ++k) ms_.push_back(elapsed_ms(2 * k, 2 * k + 1));
  }
  const std::vector<std::size_t>& order() const { return order_; }
  const std::vector<double>& ms() const { return ms_; }

 private:
  // Event k, made when first asked for: 0 and 1 bracket a whole run, 2k and 2k + 1 the k-th step.
  cudaEvent_t event(std::size_t k) {
    while (events_.size() <= k) {
      cudaEvent_t e = nullptr;
      EIN_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    return events_[k];
  }
  double elapsed_ms(std::size_t from, std::size_t to) {
    EIN_CUDA_CHECK(cudaEventSynchronize(events_[to]));
    float ms = 0;
    EIN_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms;
  }

  std::vector<cudaEvent_t> events_;
  std::vector<std::size_t> order_;  // the steps begun in this run
  std::size_t ended_ = 0;           // how many of them ended
  std::vector<double> ms_;          // the time of each step ended in this run, after finish()
};

}  // namespace ein::detail
