// The search's memos give the answers of the functions they remember: product signatures and
// may_classify against bindings, distance_memo against tree_distance, canonical_memo against
// canonical_string, kernel_memo against plain instantiation, a shared converge_cache against
// convergers on their own.
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/search/converge.hpp"
#include "ein/search/optimize.hpp"

namespace memo_test {

using namespace search_test;

namespace {

// The paper's expressions and every tree one and two rule steps away from them.
std::vector<scope_ptr> trees() {
  std::vector<scope_ptr> sources{conv(5, 4, 4, 3, 1), conv_transpose(2, 2, 4, 4, 4, 2, 1),
                                 g2bmm(2, 12, 4, 2, 2)};
  std::vector<scope_ptr> all = sources;
  for (auto& s : sources)
    for (auto& r : derive::intra_rules())
      for (auto& c : r.apply(s)) {
        all.push_back(c.result);
        for (auto& r2 : derive::intra_rules())
          for (auto& c2 : r2.apply(c.result)) all.push_back(c2.result);
      }
  return all;
}

std::string plan_text(const search::expression_plan& p) {
  std::string r = p.str();
  for (auto& k : p.kernels) r += to_string(*k.flat) + "\n";
  return r;
}

}  // namespace

TEST_CASE("may_classify is false only where no tensor mapping classifies") {
  std::size_t scopes = 0, ruled_out = 0;
  for (auto& t : trees())
    derive::for_each_position(t, [&](const scope_ptr& s, const derive::path&) {
      ++scopes;
      auto sig = match::signature(*s);
      for (auto& op : match::operator_table()) {
        bool classifies = !match::bindings(*s, op).empty();
        if (!match::may_classify(sig, op)) {
          ++ruled_out;
          INFO(to_string(*s) << " for " << match::name(op.kind));
          CHECK(!classifies);
        }
      }
    });
  MESSAGE(scopes << " scopes, " << ruled_out << " (scope, operator) pairs ruled out");
  CHECK(ruled_out > scopes);  // the check does rule out most pairs
}

TEST_CASE("distance_memo and canonical_memo give tree_distance and canonical_string") {
  auto all = trees();
  search::distance_memo distances;
  ir::canonical_memo forms;
  for (int pass = 0; pass < 2; ++pass)  // the second pass answers from memory
    for (auto& t : all) {
      CHECK(forms(t) == canonical_string(*t));
      for (auto* op : search::compute_targets()) {
        INFO(to_string(*t) << " for " << match::name(op->kind));
        CHECK(distances(t, *op) == search::tree_distance(t, *op));
      }
    }
}

TEST_CASE("instantiation and post-optimization with a kernel_memo give the plans without it") {
  auto all = trees();
  search::kernel_memo memo;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < all.size(); i += 7) {
      auto& t = all[i];
      INFO(to_string(*t));
      auto plain = search::instantiate(t, h100());
      auto remembered = search::instantiate(t, h100(), &memo);
      CHECK(plan_text(remembered) == plan_text(plain));
      CHECK(memo.form(t) == canonical_string(*t));
      std::vector<derive::step> a, b;
      auto pa = search::post_optimize(plain, h100(), 8, &a);
      auto pb = search::post_optimize(plain, h100(), 8, &b, &memo);
      CHECK(plan_text(pb) == plan_text(pa));
      CHECK(a == b);
    }
}

TEST_CASE("converging runs sharing a converge_cache find what separate runs find") {
  auto source = conv(4, 4, 4, 3, 1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto targets = search::compute_targets();
  std::vector<std::unordered_set<std::string>> alone_visited(targets.size()), shared_visited(targets.size());
  search::converge_statistics alone_stats, shared_stats;
  std::vector<scope_ptr> starts{source};
  for (auto& c : derive::intra_rules()[0].apply(source)) starts.push_back(c.result);
  std::size_t found = 0;
  for (auto& start : starts) {
    search::converge_cache cache;
    for (std::size_t t = 0; t < targets.size(); ++t) {
      search::converger alone(*targets[t], derive::intra_rules(), 3, deadline, alone_visited[t], alone_stats);
      search::converger shared(*targets[t], derive::intra_rules(), 3, deadline, shared_visited[t],
                               shared_stats, &cache);
      auto a = alone.run(start), b = shared.run(start);
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(canonical_string(*a[i].form.expr) == canonical_string(*b[i].form.expr));
        CHECK(a[i].form.how == b[i].form.how);
        CHECK(a[i].steps == b[i].steps);
      }
      found += a.size();
    }
  }
  CHECK(found > 0);
  CHECK(alone_stats.states == shared_stats.states);
  CHECK(alone_stats.pruned == shared_stats.pruned);
  CHECK(alone_stats.rejected == shared_stats.rejected);
  CHECK(alone_stats.found == shared_stats.found);
}

}  // namespace memo_test
