// Must not compile: ein::profile of a cuda plan without ein/profile_cuda.hpp, which times its
// steps with CUDA events. The plan is declared by hand, as a header of ein_generate would define it.
#include <string_view>
#include <vector>

#include "ein/ein.hpp"
#include "ein/profile.hpp"

using namespace ein;
inline constexpr var<"i"> i;
inline constexpr input<"A", float, 4> A;
inline constexpr auto twice = def<"twice">(over(i), A(i) + A(i));
inline constexpr auto net = program(twice);

template <>
struct ein::runtime::generated_plan<std::remove_cvref_t<decltype(net)>> {
  static constexpr bool generated = true;
  static constexpr backend target = backend::cuda;
  static constexpr std::string_view name = "twice_cuda";
  static constexpr std::string_view description = "plan twice_cuda\n  twice = eOperator\n";
  static constexpr double tolerance = 0;
  static constexpr std::size_t prepared_bytes = 0;
  static void* allocate_prepared();
  static void free_prepared(void*) noexcept;
  static void prepare(const bindings&, void*, stream = nullptr);
  static void run_prepared(const void*, const bindings&, stream = nullptr, step_observer* = nullptr);
  static void* capture(const void*, const bindings&);
  static void replay(const void*, stream = nullptr);
  static void free_graph(void*) noexcept;
};

int main() {
  std::vector<float> a(4), out(4);
  auto prepared = ein::prepare(net, {});
  (void)ein::profile(prepared, {{"A", a}, {"twice", out}});
}
