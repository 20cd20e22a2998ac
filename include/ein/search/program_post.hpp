// Program-level post-optimization (DESIGN §5): removing identity copies and fusing an
// eOperator definition into the one eOperator that reads it, across the definitions the chosen
// plans became.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/reads.hpp"
#include "ein/search/instantiate.hpp"
#include "ein/search/subprograms.hpp"

namespace ein::search::detail {

// A definition of the optimized program and what post-optimization needs to know of it.
struct entry {
  ir::definition def;
  bool library = false;  // a library operator other than elementwise computes it
  std::optional<std::size_t> origin;  // the subprogram whose plan wrote it
};

// The names a definition's own accesses read, in first-read order (ir/reads.hpp).
inline std::vector<std::string> tensors_read(const ir::scope& s) {
  std::vector<std::string> r;
  for (auto& t : ir::tensors_read(s.body, ir::depth::top_level)) r.push_back(t.name);
  return r;
}

// The weight-only definitions among `defs` (ir/reads.hpp).
inline std::set<std::string> weight_only(const ir::program& p, const std::vector<entry>& defs) {
  std::vector<ir::definition> d;
  for (auto& e : defs) d.push_back(e.def);
  return ir::weight_only_definitions(p.tensors, d);
}

// `reader` with every read of definition `a` replaced by a's body (traversal merging), or
// nothing where a read cannot be inlined exactly (a sum under a non-linear function, a read
// outside a's box where its body is not 0).
inline std::optional<ir::scope_ptr> inline_definition(const ir::scope_ptr& reader, const ir::definition& a) {
  auto body = derive::map_accesses(reader->body, [&](const ir::access& x) -> ir::expr {
    auto* t = std::get_if<ir::tensor>(&x.source);
    return t && t->name == a.name ? ir::make_access(a.value, x.index) : nullptr;
  });
  auto s = derive::with_body(*reader, body);
  auto nested = [](const ir::scope_ptr& e) {
    bool any = false;
    derive::for_each_access(e->body, [&](const ir::access& x) { any = any || std::holds_alternative<ir::scope_ptr>(x.source); });
    return any;
  };
  while (nested(s)) {
    std::optional<ir::scope_ptr> next;
    for (auto& c : derive::apply(derive::rule{"merge_traversal", &derive::merge_traversal}, s))
      if (auto* inlined = c.how.get<derive::path>("inline"); inlined && inlined->size() == 1) {
        next = c.result;
        break;
      }
    if (!next) return std::nullopt;
    s = *next;
  }
  return s;
}

// Removes definitions that copy a tensor unchanged (the identity index over the same box).
inline bool remove_identity(const ir::program& p, std::vector<entry>& defs, std::vector<derive::step>& log) {
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    auto& d = defs[i].def;
    auto* a = std::get_if<ir::access>(d.value->body.get());
    if (!d.value->summation.empty() || !a || !std::holds_alternative<ir::tensor>(a->source)) continue;
    auto t = std::get<ir::tensor>(a->source);
    if (a->index.size() != d.value->traversal.size()) continue;
    bool identity = true;
    for (std::size_t k = 0; k < a->index.size(); ++k)
      identity = identity && a->index[k] == ir::idx(d.value->traversal[k].name);
    if (!identity) continue;
    auto source = std::find_if(defs.begin(), defs.end(), [&](const entry& e) { return e.def.name == t.name; });
    std::vector<std::int64_t> lower(t.shape.size(), 0), shape = t.shape;
    ir::dtype type = t.type;
    if (source != defs.end()) lower = source->def.value->lower(), shape = source->def.value->shape(), type = source->def.type;
    if (lower != d.value->lower() || shape != d.value->shape() || type != d.type) continue;
    if (!outputs.count(d.name)) {
      ir::tensor to = t;
      to.type = type;
      for (auto& e : defs) e.def.value = rename_reads(e.def.value, {{d.name, to}});
      log.push_back({"remove_identity", std::nullopt, {{"definition", d.name}, {"copy of", t.name}}});
      defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    // An output copying a temporary only it reads: the temporary takes the output's name.
    if (source == defs.end() || outputs.count(t.name)) continue;
    std::size_t readers = 0;
    for (auto& e : defs) {
      auto reads = tensors_read(*e.def.value);
      readers += static_cast<std::size_t>(std::count(reads.begin(), reads.end(), t.name));
    }
    if (readers != 1) continue;
    log.push_back({"remove_identity", std::nullopt, {{"definition", d.name}, {"copy of", t.name}, {"source renamed to", d.name}}});
    source->def.name = d.name;
    defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

// Fuses an eOperator definition into the one eOperator that reads it, where that is exact and
// cheaper under `model`; weight transforms are fused only with weight transforms.
inline bool fuse_one(const ir::program& p, std::vector<entry>& defs, const cost::model& model,
                     std::vector<derive::step>& log) {
  std::set<std::string> outputs(p.outputs.begin(), p.outputs.end());
  auto only = weight_only(p, defs);
  std::map<std::string, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < defs.size(); ++i)
    for (auto& n : tensors_read(*defs[i].def.value)) readers[n].push_back(i);
  for (std::size_t b = 0; b < defs.size(); ++b) {
    if (defs[b].library) continue;
    for (auto& name : tensors_read(*defs[b].def.value)) {
      auto a = static_cast<std::size_t>(
          std::find_if(defs.begin(), defs.end(), [&](const entry& e) { return e.def.name == name; }) - defs.begin());
      if (a == defs.size() || defs[a].library || outputs.count(name) || readers[name].size() != 1 ||
          only.count(name) != only.count(defs[b].def.name) || defs[a].def.type != defs[b].def.type)
        continue;
      auto fused = inline_definition(defs[b].def.value, defs[a].def);
      if (!fused) continue;
      double before = eoperator_seconds(*defs[a].def.value, model) + eoperator_seconds(*defs[b].def.value, model);
      if (eoperator_seconds(**fused, model) > before) continue;
      log.push_back({"fuse_expression", std::nullopt, {{"definition", name}, {"into", defs[b].def.name}}});
      defs[b].def.value = *fused;
      defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(a));
      return true;
    }
  }
  return false;
}

}  // namespace ein::search::detail
