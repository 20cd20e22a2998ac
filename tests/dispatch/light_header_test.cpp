// ein.hpp, the user umbrella, stays light: it pulls neither nlohmann/json nor the emitters.
#include <doctest/doctest.h>

#include "ein/ein.hpp"

#if defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "ein/ein.hpp must not include nlohmann/json"
#endif

// Each of these would clash with the emitters' declarations if ein.hpp had included them.
namespace ein::codegen {
inline constexpr int writer = 0;
inline constexpr int emit_header = 0;
}  // namespace ein::codegen

TEST_CASE("ein.hpp offers the front end and ein::run without the emitters") {
  CHECK(ein::codegen::writer + ein::codegen::emit_header == 0);
  CHECK_FALSE(ein::runtime::has_plan_v<int>);
}
