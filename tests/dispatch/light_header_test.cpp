// ein.hpp, the user umbrella, stays light: it pulls neither nlohmann/json nor the emitters.
#include <doctest/doctest.h>

#include "ein/ein.hpp"

#if defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "ein/ein.hpp must not include nlohmann/json"
#endif

// The check that ein.hpp leaves the emitters out is this file compiling: each of these would
// clash with the emitters' declarations had ein.hpp included them.
namespace ein::codegen {
inline constexpr int writer = 0;
inline constexpr int emit_header = 0;
}  // namespace ein::codegen

TEST_CASE("ein.hpp offers the front end and ein::run without the emitters") {
  CHECK_FALSE(ein::runtime::has_plan_v<int>);
}
