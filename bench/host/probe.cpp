// The host probe: this machine's device profile (profiles/*.json) for `ein_generate BACKEND
// host`, as stage 1 measures it for its own build tree (measure::probe_host_profile), printed.
//
//   ein_host_probe [host toolchain JSON]   (default: this build's)
#include <cstdio>
#include <exception>
#include <iostream>

#include "ein/measure/host_probe.hpp"

int main(int argc, char** argv) {
  try {
    const std::string toolchain_path = argc > 1 ? argv[1] : EIN_PROBE_TOOLCHAIN;
    auto toolchain = ein::measure::read_host_toolchain(toolchain_path);
    ein::measure::host_timer timer(toolchain);
    auto fallback = ein::cost::load_profile(EIN_PROBE_FALLBACK_PROFILE);
    std::cout << ein::measure::probe_host_profile({timer.device(), timer.setup()}, toolchain, fallback,
                                                  "ein_host_probe").dump(2)
              << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ein_host_probe: %s\n", e.what());
    return 1;
  }
}
