// The rule that tells a machine without a CUDA device (GPU programs skip) from a broken CUDA
// setup (they fail), over the CUDA runtime's answers; no device needed.
#include <doctest/doctest.h>

#include "ein/runtime/cuda_device.hpp"

namespace device_rule_test {

using ein::runtime::classify_devices;
using ein::runtime::device_presence;

TEST_CASE("device rule: devices found are present; none found, none visible or no driver at all is absent") {
  CHECK(classify_devices(cudaSuccess, 1, 13000) == device_presence::present);
  CHECK(classify_devices(cudaSuccess, 8, 12080) == device_presence::present);
  CHECK(classify_devices(cudaSuccess, 0, 13000) == device_presence::absent);
  CHECK(classify_devices(cudaErrorNoDevice, 0, 13000) == device_presence::absent);
  // what the runtime says on a machine without a driver (CI's): no driver version
  CHECK(classify_devices(cudaErrorInsufficientDriver, 0, 0) == device_presence::absent);
}

TEST_CASE("device rule: every other failure is a broken setup, never a skip") {
  // a driver present but older than the runtime
  CHECK(classify_devices(cudaErrorInsufficientDriver, 0, 12040) == device_presence::broken);
  for (cudaError_t status : {cudaErrorStubLibrary, cudaErrorInitializationError, cudaErrorDevicesUnavailable,
                             cudaErrorSystemDriverMismatch, cudaErrorCompatNotSupportedOnDevice,
                             cudaErrorSystemNotReady, cudaErrorNotPermitted, cudaErrorUnknown}) {
    CAPTURE(cudaGetErrorName(status));
    CHECK(classify_devices(status, 0, 0) == device_presence::broken);
    CHECK(classify_devices(status, 0, 13000) == device_presence::broken);
  }
}

TEST_CASE("device rule: a GPU program runs, skips with 77 or fails with 1") {
  using ein::runtime::device_query;
  using ein::runtime::exit_status_without_device;
  CHECK(!exit_status_without_device(device_query{device_presence::present, 1, {}}, "p"));
  CHECK(exit_status_without_device(device_query{device_presence::absent, 0, "no CUDA device found"}, "p") == 77);
  CHECK(exit_status_without_device(device_query{device_presence::broken, 0, "the CUDA setup is broken"}, "p") == 1);
}

TEST_CASE("device rule: this machine's answer says why when there is no device") {
  const auto q = ein::runtime::query_devices();
  CHECK((q.presence == device_presence::present) == q.why.empty());
  if (q.presence == device_presence::absent) CHECK(q.why.rfind("no CUDA device found", 0) == 0);
  if (q.presence == device_presence::broken) CHECK(q.why.rfind("the CUDA setup is broken: ", 0) == 0);
  CHECK(ein::runtime::cuda_version_text(12040) == "12.4");
  CHECK(ein::runtime::cuda_version_text(13000) == "13.0");
}

}  // namespace device_rule_test
