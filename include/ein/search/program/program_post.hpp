// Program-level post-optimization (EinNet §6): removing identity copies and fusing an
// eOperator definition into the one eOperator that reads it, across the definitions the chosen
// plans became.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ein/cost/model.hpp"
#include "ein/derive/all.hpp"
#include "ein/derive/merge_traversal.hpp"
#include "ein/derive/rule.hpp"
#include "ein/ir/reads.hpp"
#include "ein/search/instantiate.hpp"
#include "ein/search/program/subprograms.hpp"

namespace ein::search::detail {

// A definition of the optimized program and what post-optimization needs to know of it.
struct entry {
  ir::definition def;
  // The library operator other than elementwise its kernel was priced as (written_instance),
  // reading the program's tensors; nothing for an eOperator.
  std::optional<match::instance> priced;
  std::optional<std::size_t> origin;  // the subprogram whose plan wrote it

  bool library() const { return priced.has_value(); }
};

// `i` with each input that reads a tensor named in `to` reading the tensor it maps to, as
// rename_reads rewrites a value.
inline void rename_operands(match::instance& i, const std::map<std::string, ir::tensor>& to) {
  for (auto& o : i.inputs)
    if (auto* t = std::get_if<ir::tensor>(&o.source))
      if (auto it = to.find(t->name); it != to.end()) o.source = it->second;
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
    for (auto& c : derive::apply(derive::intra_rule_named("merge_traversal"), s))
      if (auto* inlined = c.how.get<derive::path>("inline"); inlined && inlined->size() == 1) {
        next = c.result;
        break;
      }
    if (!next) return std::nullopt;
    s = *next;
  }
  derive::verify_in_debug("fuse_expression", *s);
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
      const std::map<std::string, ir::tensor> renamed{{d.name, to}};
      for (auto& e : defs) {
        e.def.value = rename_reads(e.def.value, renamed);
        if (e.priced) rename_operands(*e.priced, renamed);
      }
      log.push_back({"remove_identity", std::nullopt, {{"definition", d.name}, {"copy of", t.name}}});
      defs.erase(defs.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    // An output copying a temporary only it reads: the temporary takes the output's name.
    if (source == defs.end() || outputs.count(t.name)) continue;
    std::size_t readers = 0;
    for (auto& e : defs) {
      auto reads = ir::tensor_names_read(e.def.value->body, ir::depth::top_level);
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

// What post-optimizing the programs of one search shares under one cost model, by definition
// value: the tensors each value reads (top level and nested), and what fusing definition `a`
// into a reader gives (the fused value, or nothing where inlining is not exact or not cheaper),
// which depends on the two values and a's name alone. The programs one search assembles share
// most values (the same pointers, fused the same way), so each is read and each fusion decided
// once. The keys hold the values, so that an address is never reused while the memo lives.
struct post_memo {
  ir::reads_memo reads;
  std::map<std::tuple<ir::scope_ptr, ir::scope_ptr, std::string>, std::optional<ir::scope_ptr>> fused;

  const std::optional<ir::scope_ptr>& fusion(const ir::definition& a, const ir::scope_ptr& b, const cost::model& model) {
    auto key = std::make_tuple(b, a.value, a.name);
    auto it = fused.find(key);
    if (it != fused.end()) return it->second;
    std::optional<ir::scope_ptr> r = inline_definition(b, a);
    if (r && eoperator_seconds(**r, model) > eoperator_seconds(*a.value, model) + eoperator_seconds(*b, model)) r.reset();
    return fused.emplace(key, r).first->second;
  }
};

// Fuses an eOperator definition into the one eOperator that reads it, where that is exact and
// cheaper under `model`; weight transforms are fused only with weight transforms. Each step
// takes the first reader (in program order) and, in its first-read order, the first definition
// it may absorb. What a scan needs (each definition's position, each tensor's readers, the
// weight-only definitions) is kept across steps and updated by what a fusion changes.
class fuser {
 public:
  fuser(const ir::program& p, std::vector<entry>& defs, const cost::model& model, post_memo& memo)
      : p_(p), defs_(defs), model_(model), memo_(memo), outputs_(p.outputs.begin(), p.outputs.end()) {
    for (auto& t : p.tensors)
      if (t.role == ir::tensor_role::weight) weights_.insert(t.name);
    restart();
  }

  // Everything found again from the definitions, the scan from the first: after a change
  // fuse_one did not make (remove_identity's).
  void restart() {
    at_.clear();
    readers_.clear();
    for (std::size_t i = 0; i < defs_.size(); ++i) {
      at_.try_emplace(defs_[i].def.name, i);
      for (auto& n : memo_.reads.top_level_names(defs_[i].def.value)) ++readers_[n];
    }
    weight_only();
    from_ = 0;
  }

  // One fusion, the first the scan finds; false where none is left.
  bool fuse_one(std::vector<derive::step>& log) {
    for (std::size_t b = from_; b < defs_.size(); ++b) {
      if (defs_[b].library()) continue;
      for (auto& name : memo_.reads.top_level_names(defs_[b].def.value)) {
        auto found = at_.find(name);
        if (found == at_.end()) continue;
        auto a = found->second;
        if (defs_[a].library() || outputs_.count(name) || readers_[name] != 1 ||
            only_.count(name) != only_.count(defs_[b].def.name) || defs_[a].def.type != defs_[b].def.type)
          continue;
        auto& fused = memo_.fusion(defs_[a].def, defs_[b].def.value, model_);
        if (!fused) continue;
        log.push_back({"fuse_expression", std::nullopt, {{"definition", name}, {"into", defs_[b].def.name}}});
        fuse(a, b, *fused);
        return true;
      }
    }
    return false;
  }

 private:
  void weight_only() {
    std::vector<ir::definition> all;
    for (auto& e : defs_) all.push_back(e.def);
    only_ = ir::weight_only_definitions(p_.tensors, all, memo_.reads);
  }

  // Definition a, read by b alone, inlined into b. A pair before b that failed still fails: its
  // reader reads neither a (b is a's only reader) nor b (else it is where the scan starts), and
  // a tensor both a and b read still has that reader and b. The weight-only definitions stay
  // while b's own status does (a, read by b alone, is gone); where it changes, all are found
  // again and the scan starts from the first.
  void fuse(std::size_t a, std::size_t b, const ir::scope_ptr& fused) {
    for (auto& n : memo_.reads.top_level_names(defs_[a].def.value)) --readers_[n];
    for (auto& n : memo_.reads.top_level_names(defs_[b].def.value)) --readers_[n];
    for (auto& n : memo_.reads.top_level_names(fused)) ++readers_[n];
    at_.erase(defs_[a].def.name);
    for (auto& [n, i] : at_)
      if (i > a) --i;
    defs_[b].def.value = fused;
    defs_.erase(defs_.begin() + static_cast<std::ptrdiff_t>(a));
    if (b > a) --b;
    auto known = [&](const ir::tensor& t) { return weights_.count(t.name) > 0 || only_.count(t.name) > 0; };
    bool only = ir::computed_from_weights(memo_.reads.nested(fused), known);
    if (only != (only_.count(defs_[b].def.name) > 0)) {
      weight_only();
      from_ = 0;
      return;
    }
    from_ = b;
    for (std::size_t i = 0; i < b; ++i) {
      auto& read = memo_.reads.top_level_names(defs_[i].def.value);
      if (std::find(read.begin(), read.end(), defs_[b].def.name) != read.end()) {
        from_ = i;
        break;
      }
    }
  }

  const ir::program& p_;
  std::vector<entry>& defs_;
  const cost::model& model_;
  post_memo& memo_;
  std::set<std::string> outputs_, weights_;
  std::map<std::string, std::size_t> at_;       // definition → its first position
  std::map<std::string, std::size_t> readers_;  // tensor → how many definitions read it
  std::set<std::string> only_;                  // the weight-only definitions
  std::size_t from_ = 0;                        // no pair before it fuses
};

// Post-optimization: identity copies removed and eOperators fused, one step at a time, an
// identity first, until neither applies. `memo` serves one model.
inline void post_optimize(const ir::program& p, std::vector<entry>& defs, const cost::model& model,
                          std::vector<derive::step>& log, post_memo& memo) {
  fuser f(p, defs, model, memo);
  for (;;) {
    if (remove_identity(p, defs, log))
      f.restart();
    else if (!f.fuse_one(log))
      return;
  }
}

}  // namespace ein::search::detail
