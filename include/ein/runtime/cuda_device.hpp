// Whether a CUDA device is here to run on: the one rule that tells "no device" (a GPU program
// skips) from a broken CUDA setup (it fails), over what the CUDA runtime reports.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <optional>
#include <string>

namespace ein::runtime {

/// What a program finds when it asks the CUDA runtime for devices.
enum class device_presence : unsigned char { present, absent, broken };

/// The rule, over cudaGetDeviceCount's status and count and cudaDriverGetVersion's version:
/// - present: at least one device;
/// - absent: nothing to run on, and nothing wrong — no device found or none visible
///   (cudaErrorNoDevice, or success with none), or no CUDA driver installed at all
///   (cudaErrorInsufficientDriver with driver version 0: a machine without a GPU, such as CI's);
/// - broken: any other failure — a driver older than the runtime (cudaErrorInsufficientDriver
///   with a version), the toolkit's stub library loaded in place of a driver
///   (cudaErrorStubLibrary), a failed initialization, devices busy or unavailable, a
///   driver/kernel-module mismatch: a GPU machine set up wrongly, which must not pass as skipped.
constexpr device_presence classify_devices(cudaError_t status, int count, int driver_version) {
  if (status == cudaSuccess) return count > 0 ? device_presence::present : device_presence::absent;
  if (status == cudaErrorNoDevice) return device_presence::absent;
  if (status == cudaErrorInsufficientDriver && driver_version == 0) return device_presence::absent;
  return device_presence::broken;
}

/// What query_devices() found: the verdict, the device count, and (unless present) why, in words.
struct device_query {
  device_presence presence = device_presence::absent;
  int count = 0;
  std::string why;
};

/// A CUDA version number in words: 12040 -> "12.4".
inline std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

/// Asks the CUDA runtime for its devices and classifies the answer (classify_devices). A failed
/// query is taken out of the thread's last error: it is no error of later calls.
inline device_query query_devices() {
  int count = 0, driver = 0, runtime = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) count = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  static_cast<void>(cudaGetLastError());
  device_query q{classify_devices(status, count, driver), count, {}};
  if (q.presence == device_presence::present) return q;
  const std::string error = status == cudaSuccess ? std::string() : cudaGetErrorName(status);
  if (q.presence == device_presence::absent)
    q.why = status == cudaSuccess ? "no CUDA device found"
            : driver == 0         ? "no CUDA device found (no CUDA driver is installed: " + error + ")"
                                  : "no CUDA device found (" + error + ")";
  else
    q.why = "the CUDA setup is broken: cudaGetDeviceCount gives " + error + " (" + cudaGetErrorString(status) +
            "; driver " + (driver ? "for CUDA " + cuda_version_text(driver) : std::string("not found")) +
            ", runtime CUDA " + cuda_version_text(runtime) + ")";
  return q;
}

/// The exit status by which a GPU program says it was skipped (CTest's SKIP_RETURN_CODE,
/// bench/gpu/run.sh).
inline constexpr int exit_skipped = 77;

/// What main() of a GPU program `program` returns for query `q`: nothing where a device is
/// present (it runs); else it says why, then exit_skipped where none is here, 1 where the CUDA
/// setup is broken.
inline std::optional<int> exit_status_without_device(const device_query& q, const char* program) {
  if (q.presence == device_presence::present) return std::nullopt;
  if (q.presence == device_presence::absent) {
    std::printf("%s: skipped: %s\n", program, q.why.c_str());
    return exit_skipped;
  }
  std::fprintf(stderr, "%s: FAILED: %s\n", program, q.why.c_str());
  return 1;
}

/// The same for this machine, at the top of a GPU program's main():
///
///     if (auto status = ein::runtime::exit_without_device("bench_gpu_bandwidth")) return *status;
inline std::optional<int> exit_without_device(const char* program) {
  return exit_status_without_device(query_devices(), program);
}

}  // namespace ein::runtime
