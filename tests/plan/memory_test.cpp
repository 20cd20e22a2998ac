// A plan's temporaries placed by lifetime: those never live at once share bytes, those that are
// never do, and the peak is the bound buffers plus the block.
#include <doctest/doctest.h>

#include "ein/ir/expr.hpp"
#include "ein/plan/build.hpp"
#include "ein/plan/memory.hpp"

namespace memory_test {

using namespace ein;
using namespace ein::ir;

// x → a → b → c → y, each 256 floats (1 KiB), a chain of elementwise definitions
program chain() {
  tensor x{"x", dtype::f32, {256}, tensor_role::input};
  std::vector<definition> defs;
  std::string from = "x";
  for (const char* n : {"a", "b", "c", "y"}) {
    tensor in{from, dtype::f32, {256}, from == "x" ? tensor_role::input : tensor_role::definition};
    defs.push_back({n, make_scope({{"i", 0, 256}}, {}, make_unary(unary_fn::relu, make_access(in, {idx("i")}))), dtype::f32});
    from = n;
  }
  return {"chain", {x}, defs, {"y"}};
}

TEST_CASE("a chain's temporaries reuse the bytes of the dead: two of three live at once") {
  auto p = plan::make_plan(chain(), {});
  auto block = plan::place_temporaries(
      p.buffers, p.kernels, [](std::size_t) { return true; },
      [&](std::size_t id) { return p.buffers[id].role == plan::buffer::kind::temporary; },
      [](std::size_t) { return false; }, 64);
  CHECK(block.bytes == 2048);
  auto a = p.by_name.at("a"), b = p.by_name.at("b"), c = p.by_name.at("c");
  CHECK(block.offset[a] != block.offset[b]);  // b is written while a is read
  CHECK(block.offset[b] != block.offset[c]);
  CHECK(block.offset[a] == block.offset[c]);  // a is dead when c is written
  CHECK(block.offset[p.by_name.at("y")] == -1);  // an output is bound, not placed
  CHECK(plan::peak_bytes(p) == 1024 + 1024 + 2048);
}

TEST_CASE("a value read at the end stays live through the chain: nothing shares its bytes") {
  auto q = chain();
  tensor a{"a", dtype::f32, {256}, tensor_role::definition}, c{"c", dtype::f32, {256}, tensor_role::definition};
  q.definitions.back().value =
      make_scope({{"i", 0, 256}}, {}, make_access(c, {idx("i")}) + make_access(a, {idx("i")}));
  auto p = plan::make_plan(q, {});
  auto block = plan::place_temporaries(
      p.buffers, p.kernels, [](std::size_t) { return true; },
      [&](std::size_t id) { return p.buffers[id].role == plan::buffer::kind::temporary; },
      [](std::size_t) { return false; }, 64);
  CHECK(block.bytes == 3072);
}

TEST_CASE("a temporary read at the end of the body keeps its bytes to the end") {
  auto p = plan::make_plan(chain(), {});
  const auto a = p.by_name.at("a"), b = p.by_name.at("b"), c = p.by_name.at("c");
  auto block = plan::place_temporaries(
      p.buffers, p.kernels, [](std::size_t) { return true; },
      [&](std::size_t id) { return p.buffers[id].role == plan::buffer::kind::temporary; },
      [&](std::size_t id) { return id == a; }, 64);
  CHECK(block.bytes == 3072);
  CHECK(block.offset[a] != block.offset[c]);
  CHECK(block.offset[a] != block.offset[b]);
}

}  // namespace memory_test
