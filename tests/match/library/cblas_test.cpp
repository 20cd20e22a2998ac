// The emitted CBLAS calls, compiled into this test, equal the interpreter on every GEMM case.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "ein_library_cblas.hpp"
#include "match/check.hpp"
#include "match/library/cases.hpp"

using namespace ein;

namespace {

template <class T>
using case_fn = void (*)(const T* const*, T*);

template <class T>
double run_case(const match::library_test::library_case& c, case_fn<T> fn) {
  auto found = match::test::of_kind(*c.scope, c.kind);
  REQUIRE(!found.empty());
  auto& op = found.front();
  auto env = match::test::random_bindings(*c.scope, 11);
  std::vector<std::vector<T>> buffers;
  for (auto& o : op.inputs) {
    auto& d = env.at(std::get<ir::tensor>(o.source).name).data;
    buffers.emplace_back(d.begin(), d.end());
  }
  std::vector<const T*> ptrs{buffers[0].data(), buffers[1].data()};
  auto ref = eval::evaluate(*c.scope, env);
  std::vector<T> out(ref.data.size(), T(1e30));
  fn(ptrs.data(), out.data());
  return eval::max_rel_error(std::span<const T>(out), ref);
}

}  // namespace

TEST_CASE("cblas emitter: the generated calls equal the interpreter") {
  std::map<std::string, case_fn<float>> f32{
      {"matmul", ein_library_cases::matmul},
      {"matmul_ta_offset", ein_library_cases::matmul_ta_offset},
      {"matmul_out_transposed", ein_library_cases::matmul_out_transposed},
      {"batch_matmul_mixed_layouts", ein_library_cases::batch_matmul_mixed_layouts},
      {"figure_8b", ein_library_cases::figure_8b},
      {"matmul_broadcast_batch", ein_library_cases::matmul_broadcast_batch}};
  int ran = 0;
  for (auto& c : match::library_test::library_cases()) {
    INFO("case " << c.name);
    if (auto it = f32.find(c.name); it != f32.end()) {
      CHECK(run_case<float>(c, it->second) < 1e-5);
      ++ran;
    }
    if (c.name == "matmul_f64") {
      CHECK(run_case<double>(c, ein_library_cases::matmul_f64) < 1e-12);
      ++ran;
    }
  }
  CHECK(ran == 7);
}
