// ein's version, which keys what depends on it (the cost cache).
#pragma once

namespace ein {

/// ein's version, `major.minor.patch` (CMake's project version is read from this line).
inline constexpr const char* version = "0.1.0";

}  // namespace ein
