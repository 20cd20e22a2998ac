// For doctest cases that need a CUDA device: skipped where none is here, failed where the CUDA
// setup is broken (ein/runtime/cuda_device.hpp). Their ctest sets SKIP_REGULAR_EXPRESSION to
// "ein: GPU test skipped".
#pragma once

#include <doctest/doctest.h>

#include <cstdio>

#include "ein/runtime/cuda_device.hpp"

namespace ein_test {

/// Whether the calling case is to stop here: true (saying so) where no device is here; a broken
/// setup fails the case.
inline bool skip_without_device() {
  const auto q = ein::runtime::query_devices();
  if (q.presence == ein::runtime::device_presence::present) return false;
  REQUIRE_MESSAGE(q.presence == ein::runtime::device_presence::absent, q.why);
  std::printf("ein: GPU test skipped: %s\n", q.why.c_str());
  return true;
}

}  // namespace ein_test
