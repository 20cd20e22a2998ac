// Mutants of a valid JSON file, for fuzzing ein's readers: fields removed, retyped, duplicated
// or renamed, numbers made huge, negative, off by one or not finite, text truncated or with bytes
// flipped, inserted or deleted.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ein/eval/random.hpp"

namespace ein_fuzz {

using nlohmann::json;

/// A mutant: its text, what was done (for a failure report) and, for mutants that JSON text
/// cannot carry (NaN, infinity), the document itself, to feed readers of parsed JSON.
struct mutant {
  std::string text;
  std::vector<std::string> steps;
  json document;         // the mutated document (null when the text was mutated after dumping)
  bool in_memory = false;  // the document holds a value its text does not (NaN, inf)
};

/// Mutates a document: 1 to 3 structural mutations of random nodes, then, one time in three,
/// one mutation of the text. The same seed gives the same mutant.
class mutator {
 public:
  explicit mutator(std::uint64_t seed) : rng_(seed) {}

  mutant operator()(const json& valid) {
    mutant m;
    m.document = valid;
    int structural = 1 + static_cast<int>(below(3));
    std::string duplicate;  // text that replaces a placeholder value after dumping
    for (int i = 0; i < structural; ++i) mutate_node(m, duplicate);
    m.text = m.document.dump(below(2) ? 2 : -1);
    if (!duplicate.empty()) {
      auto at = m.text.find("\"" + placeholder + "\"");
      if (at != std::string::npos) m.text.replace(at, placeholder.size() + 2, duplicate);
      m.document = nullptr;
      m.in_memory = false;
    }
    if (below(3) == 0) {
      mutate_text(m);
      m.document = nullptr;
      m.in_memory = false;
    }
    return m;
  }

 private:
  inline static const std::string placeholder = "__ein_fuzz_duplicate__";

  std::uint64_t below(std::uint64_t n) { return rng_.next() % n; }

  // Every node of `j` with its JSON pointer, the root first.
  static void nodes(json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object())
      for (auto& [k, v] : j.items()) nodes(v, at / k, out);
    else if (j.is_array())
      for (std::size_t i = 0; i < j.size(); ++i) nodes(j[i], at / i, out);
  }

  json replacement(const json& old) {
    static const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    switch (below(16)) {
      case 0: return nullptr;
      case 1: return below(2) == 0;
      case 2: return "";
      case 3: return "x";
      case 4: return json::array();
      case 5: return json::object();
      case 6: return 0;
      case 7: return -1;
      case 8: return 0.5;
      case 9: return big;
      case 10: return std::numeric_limits<std::int64_t>::min();
      case 11: return std::numeric_limits<std::uint64_t>::max();
      case 12: return 1e300;
      case 13: return -1e300;
      case 14: return std::numeric_limits<double>::quiet_NaN();
      default: return old.is_array() || old.is_object() ? json(old.dump()) : json::array({old});
    }
  }

  static bool small_integer(const json& v) {
    return v.is_number_integer() && std::abs(v.get<double>()) < 1e18;
  }

  json renumbered(const json& v) {
    double d = v.get<double>();
    switch (below(10)) {
      case 0: return -d;
      case 1: return small_integer(v) ? json(v.get<std::int64_t>() + 1) : json(d * 1.5);
      case 2: return small_integer(v) ? json(v.get<std::int64_t>() - 1) : json(d / 3);
      case 3: return 0;
      case 4: return std::int64_t(1) << 62;
      case 5: return -(std::int64_t(1) << 62);
      case 6: return std::numeric_limits<double>::infinity();
      case 7: return std::numeric_limits<double>::quiet_NaN();
      case 8: return d * 1e200;
      default: return std::int64_t(1) << 40;
    }
  }

  void mutate_node(mutant& m, std::string& duplicate) {
    std::vector<json::json_pointer> all;
    nodes(m.document, json::json_pointer(), all);
    auto at = all[below(all.size())];
    json& node = m.document[at];
    auto where = at.to_string();
    switch (below(8)) {
      case 0:  // remove the node from its parent
        if (!at.empty()) {
          json& parent = m.document[at.parent_pointer()];
          if (parent.is_object())
            parent.erase(at.back());
          else
            parent.erase(static_cast<std::size_t>(std::stoull(at.back())));
          m.steps.push_back("remove " + where);
          return;
        }
        break;
      case 1:  // a number made huge, negative, off by one, zero or not finite
        if (node.is_number()) {
          node = renumbered(node);
          if (node.is_number_float() && !std::isfinite(node.get<double>())) m.in_memory = true;
          m.steps.push_back("renumber " + where + " to " + node.dump());
          return;
        }
        break;
      case 2:  // a duplicated key (the text has it twice) or array element
        if (node.is_object() && !node.empty() && duplicate.empty()) {
          auto it = node.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(below(node.size())));
          auto key = it.key();
          json other = replacement(*it);
          duplicate = it->dump() + ", " + json(key).dump() + ": " + other.dump();
          *it = placeholder;
          m.steps.push_back("duplicate key " + where + "/" + key + " as " + other.dump());
          return;
        }
        if (node.is_array() && !node.empty()) {
          auto i = below(node.size());
          node.insert(node.begin() + static_cast<std::ptrdiff_t>(i), node[i]);
          m.steps.push_back("duplicate element " + where + "/" + std::to_string(i));
          return;
        }
        break;
      case 3:  // a key renamed
        if (node.is_object() && !node.empty()) {
          auto it = node.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(below(node.size())));
          auto key = it.key();
          json value = *it;
          node.erase(key);
          node[key + "_"] = std::move(value);
          m.steps.push_back("rename " + where + "/" + key);
          return;
        }
        break;
      case 4:  // two elements swapped
        if (node.is_array() && node.size() > 1) {
          auto i = below(node.size()), j = below(node.size());
          std::swap(node[i], node[j]);
          m.steps.push_back("swap " + where + " " + std::to_string(i) + " " + std::to_string(j));
          return;
        }
        break;
      case 5:  // a string replaced by another string of the document
        if (node.is_string()) {
          std::vector<json::json_pointer> strings;
          for (auto& p : all)
            if (m.document[p].is_string()) strings.push_back(p);
          node = json(m.document[strings[below(strings.size())]]);
          m.steps.push_back("restring " + where + " to " + node.dump());
          return;
        }
        break;
      default:
        break;
    }
    node = replacement(node);
    if (node.is_number_float() && !std::isfinite(node.get<double>())) m.in_memory = true;
    m.steps.push_back("retype " + where + " to " + node.dump());
  }

  void mutate_text(mutant& m) {
    auto& t = m.text;
    if (t.empty()) return;
    auto at = below(t.size());
    switch (below(5)) {
      case 0:
        t.resize(at);
        m.steps.push_back("truncate at byte " + std::to_string(at));
        break;
      case 1:
        t[at] = static_cast<char>(t[at] ^ (1 << below(8)));
        m.steps.push_back("flip a bit of byte " + std::to_string(at));
        break;
      case 2:
        t.insert(at, 1, "{}[]\",:0-e9.\\ \x80"[below(15)]);
        m.steps.push_back("insert a byte at " + std::to_string(at));
        break;
      case 3:
        t.erase(at, 1 + below(8));
        m.steps.push_back("delete bytes at " + std::to_string(at));
        break;
      default: {
        auto n = 1 + below(std::min<std::uint64_t>(64, t.size() - at));
        t.insert(at, t.substr(at, n));
        m.steps.push_back("repeat " + std::to_string(n) + " bytes at " + std::to_string(at));
      }
    }
  }

  ein::eval::random_stream rng_;
};

}  // namespace ein_fuzz
