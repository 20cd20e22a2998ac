// ein.hpp, the user umbrella, stays light: it pulls neither nlohmann/json nor the emitters.
#include <doctest/doctest.h>

#include <type_traits>
#include <vector>

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

namespace light_header_model {
using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"X", float, 4> X;
inline constexpr auto y = def<"y">(over(i), X(i) * 2.0);
inline constexpr auto net = program(y);
}  // namespace light_header_model

TEST_CASE("ein.hpp offers the front end and ein::run without the emitters") {
  static_assert(!ein::runtime::has_plan_v<std::remove_cvref_t<decltype(light_header_model::net)>>);
  std::vector<float> x = {1, -2, 3, 4}, y(4);
  ein::run(light_header_model::net, {{"X", x}, {"y", y}});
  CHECK(y == std::vector<float>{2, -4, 6, 8});
}
