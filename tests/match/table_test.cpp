// Laws over the whole operator table: each canonical expression matches its own operator, at
// several sizes, with the same value as the interpreter, at expression distance 0.
#include <doctest/doctest.h>

#include <iterator>
#include <set>
#include <string>

#include "match/check.hpp"

namespace table_test {

using namespace ein;
using namespace ein::match;
using namespace ein::match::test;

TEST_CASE("table: every canonical expression matches its operator") {
  for (auto& op : operator_table())
    for (std::int64_t scale : {1, 2}) {
      std::map<std::string, std::int64_t> size;
      for (auto& col : op.columns)
        for (auto& it : col.iterators)
          size[it] = 2 + scale + static_cast<std::int64_t>(it.size() % 2);
      if (op.kind == op_kind::g2bmm || op.kind == op_kind::gbmm) size["m"] = 9 * scale;
      auto s = op.canonical(size);
      INFO("operator " << match::name(op.kind) << ": " << ir::to_string(*s));
      auto found = match::match(*s, op);
      REQUIRE(found.size() >= 1);
      CHECK(found.front().kind == op.kind);
      CHECK(semantic_error(*s, found.front()) < 1e-12);
      CHECK(distance(*s, op) == 0);
      CHECK(found.front().flops > 0);
      CHECK(found.front().bytes > 0);
      // a compute operator's output grid covers the scope's output once
      if (op.body == body_kind::product) {
        std::int64_t elements = 1;
        for (auto e : s->shape()) elements *= e;
        CHECK(found.front().grid.elements() == elements);
        CHECK(found.front().grid.rows > 1);
      }
    }
}

TEST_CASE("table: the operators are listed once, in a fixed order") {
  auto& t = operator_table();
  REQUIRE(t.size() == 8);
  CHECK(t[2].kind == op_kind::matmul);
  CHECK(t[3].kind == op_kind::batch_matmul);
  for (auto& op : t) {
    CHECK(!op.columns.empty());
    for (auto& col : op.columns) CHECK(col.inputs < (1u << op.roles.size()));
  }
}

TEST_CASE("op_kind: the one list names every kind as it is spelled, and the table computes each") {
  std::set<std::string> in_table;
  for (auto& op : operator_table()) in_table.insert(match::name(op.kind));
  CHECK(in_table.size() == std::size(op_kind_names));  // a kind without an operator fails here
  for (const char* n : op_kind_names) CHECK(in_table.count(n) == 1);
  CHECK(std::string(match::name(op_kind::elementwise)) == "elementwise");
  CHECK(std::string(match::name(op_kind::conv_transpose2d)) == "conv_transpose2d");
  CHECK(std::string(match::name(op_kind::gbmm)) == "gbmm");
}

TEST_CASE("eoperator_cost: FLOPs and bytes of a scope no operator computes") {
  // OffsetReduce of Figure 5 (E7): L_{h,w,f} Σ_{r,s} T[r, s, h + r, w + s, f]
  auto T = f32("T", {3, 3, 9, 9, 4});
  auto s =
      ir::make_scope({{"h", 0, 7}, {"w", 0, 7}, {"f", 0, 4}}, {{"r", 0, 3}, {"s", 0, 3}},
                     ir::make_access(T, {ir::idx("r"), ir::idx("s"), ir::idx("h") + ir::idx("r"),
                                         ir::idx("w") + ir::idx("s"), ir::idx("f")}));
  CHECK(match::match(*s).empty());
  auto c = eoperator_cost(*s);
  CHECK(c.flops == 7.0 * 7 * 4 * 9);
  CHECK(c.bytes == 4.0 * (7 * 7 * 4 * 9) + 4.0 * 7 * 7 * 4);
  CHECK(memory_bound(c));
}

}  // namespace table_test
