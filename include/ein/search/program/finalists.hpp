// Measuring what the search chooses between: each subprogram's few best candidates under the
// model that explored, priced again under a model that measures them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/instantiate.hpp"
#include "ein/search/program/optimized_program.hpp"

namespace ein::search {

/// Keeps, of the candidates of each searched subprogram of `r`, the plan as written and the `k`
/// cheapest as a build with capabilities `caps` runs them under `model` among those
/// choose_for_backend admits: first the cheapest of each plan shape (plan::shape: a convolution
/// against its Matmul + OffsetReduce, say), cheapest first, then the cheapest of the rest. These
/// are the finalists a measured model decides between: the search prices thousands of kernels
/// (FSRCNN's: 6579 distinct eOperators and 675 library calls under the host roofline), more
/// than a host can compile and run in a build, and the model that explored ranks them well
/// enough to name the few worth measuring (docs/decisions/0025). Candidates keep their order
/// (discovery order, the plan as written first).
/// @pre choose_for_backend(s.result, model, caps) has run for each searched subprogram (as
///      optimize_program's for_backend does).
inline void keep_finalists(optimized_program& r, const cost::model& model, const ein::plan::capabilities& caps,
                           std::size_t k) {
  for (auto& s : r.subprograms) {
    if (!s.searched) continue;
    auto& c = s.result.candidates;
    auto [t, admitted] = detail::admit(s.result, model, caps);
    std::vector<std::size_t> order;
    for (std::size_t i = 1; i < c.size(); ++i)
      if (admitted[i]) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::tie(t[a], a) < std::tie(t[b], b); });
    std::set<std::size_t> kept{0};
    std::set<std::string> shapes;
    for (auto i : order)
      if (kept.size() <= k && shapes.insert(c[i].p.shape()).second) kept.insert(i);
    for (auto i : order)
      if (kept.size() <= k) kept.insert(i);
    std::vector<candidate_plan> finalists;
    for (auto i : kept) finalists.push_back(std::move(c[i]));
    c = std::move(finalists);
    s.result.chosen = 0;
    s.result.best = c.front().p;
  }
}

/// Every plan of `r` (each subprogram's candidates, its plan as written and its chosen plan)
/// instantiated again under `model`: each kernel the cheapest library operator under `model`
/// where one computes it, else an eOperator, priced by `model` (instantiate). Structure does not
/// change, only prices and which matching operator a kernel runs as.
inline void reprice(optimized_program& r, const cost::model& model) {
  for (auto& s : r.subprograms) {
    auto& res = s.result;
    res.baseline = instantiate(res.baseline.expr, model);
    for (auto& c : res.candidates) c.p = instantiate(c.p.expr, model);
    res.best = res.candidates.at(res.chosen).p;
    res.model = model.describe();
  }
  r.model = model.describe();
}

}  // namespace ein::search
