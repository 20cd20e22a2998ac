// Einsum: the product of the operands at the letters' positions, summed over the letters the
// output lacks; `...` stands for the same broadcast axes in every term, and without `->` the
// output is the letters used once, in alphabetical order, after the `...` axes:
//   "bij,bjk->bik": Y[b, i, k] = Σ_j A[b, i, j] · B[b, j, k]
#pragma once

#include <algorithm>
#include <cctype>
#include <map>

#include "ein/onnx/operators/common.hpp"

namespace ein::onnx::operators {

namespace detail {

// One term of the equation: its letters, and where `...` stands among them (npos: nowhere).
struct einsum_term {
  std::string letters;
  std::size_t ellipsis = std::string::npos;
};

inline einsum_term einsum_parse_term(const node_context& n, const std::string& text) {
  einsum_term t;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text.compare(k, 3, "...") == 0 && t.ellipsis == std::string::npos) {
      t.ellipsis = t.letters.size();
      k += 2;
    } else if (std::isalpha(static_cast<unsigned char>(text[k]))) {
      t.letters += text[k];
    } else {
      n.fail("attribute `equation`: `" + text + "` holds `" + text.substr(k, 1) + "`, neither a letter nor `...`");
    }
  }
  return t;
}

}  // namespace detail

inline void convert_einsum(node_context& n) {
  std::string eq;
  for (char ch : n.attr_string("equation", "")) if (ch != ' ') eq += ch;
  if (eq.empty()) n.fail("attribute `equation` is required");
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<detail::einsum_term> terms;
  for (std::size_t start = 0;;) {
    auto comma = lhs.find(',', start);
    terms.push_back(detail::einsum_parse_term(n, lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != n.inputs())
    n.fail("attribute `equation` has " + std::to_string(terms.size()) + " terms for " + std::to_string(n.inputs()) +
           " inputs");
  std::vector<operand> xs;
  std::map<char, std::int64_t> extent;
  std::vector<std::int64_t> ellipsis;  // the broadcast extents `...` stands for
  for (std::size_t k = 0; k < terms.size(); ++k) {
    xs.push_back(n.tensor(k, "Inputs"));
    same_type(n, xs[0], xs.back());
    auto& t = terms[k];
    auto& x = xs.back();
    std::size_t dots = t.ellipsis == std::string::npos ? 0 : x.rank() - std::min(x.rank(), t.letters.size());
    if (t.letters.size() + dots != x.rank())
      n.fail("term " + std::to_string(k) + " of `equation` has " + std::to_string(t.letters.size()) +
             " letters for input `" + x.name + "` of rank " + std::to_string(x.rank()));
    for (std::size_t d = 0; d < t.letters.size(); ++d) {
      std::int64_t e = x.shape[d < t.ellipsis ? d : d + dots];
      auto [it, fresh] = extent.emplace(t.letters[d], e);
      if (!fresh && it->second != e)
        n.fail("letter `" + std::string(1, t.letters[d]) + "` has extent " + std::to_string(it->second) + " and " +
               std::to_string(e));
    }
    if (dots > 0) {
      std::vector<std::int64_t> own(x.shape.begin() + static_cast<std::ptrdiff_t>(t.ellipsis),
                                    x.shape.begin() + static_cast<std::ptrdiff_t>(t.ellipsis + dots));
      ellipsis = broadcast(n, ellipsis, own);
    }
  }
  std::string out;
  bool out_dots = false;
  if (arrow != std::string::npos) {
    auto t = detail::einsum_parse_term(n, eq.substr(arrow + 2));
    out = t.letters;
    out_dots = t.ellipsis != std::string::npos;
    if (out_dots && t.ellipsis != 0) n.fail("attribute `equation`: ein reads `...` first in the output only");
    for (char ch : out) {
      if (!extent.count(ch)) n.fail("output letter `" + std::string(1, ch) + "` is in no input term");
      if (std::count(out.begin(), out.end(), ch) > 1) n.fail("output letter `" + std::string(1, ch) + "` is repeated");
    }
  } else {
    std::map<char, int> uses;
    for (auto& t : terms)
      for (char ch : t.letters) ++uses[ch];
    for (auto& [ch, count] : uses)
      if (count == 1) out += ch;
    out_dots = !ellipsis.empty();
  }
  if (!ellipsis.empty() && !out_dots) n.fail("attribute `equation`: ein needs `...` in the output where inputs have it");
  auto name_of = [](char ch) { return std::string("e_") + ch; };
  auto dots_its = iterators(ellipsis, "b");
  std::vector<ir::iterator> traversal = dots_its, summation;
  for (char ch : out) traversal.push_back({name_of(ch), 0, extent[ch]});
  for (auto& [ch, e] : extent)
    if (out.find(ch) == std::string::npos) summation.push_back({name_of(ch), 0, e});
  ir::expr body;
  for (std::size_t k = 0; k < xs.size(); ++k) {
    auto& t = terms[k];
    auto& x = xs[k];
    std::vector<ir::affine> xi;
    std::size_t dots = x.rank() - t.letters.size();
    for (std::size_t d = 0; d <= t.letters.size(); ++d) {
      if (d == t.ellipsis)
        for (std::size_t e = 0; e < dots; ++e) {
          std::size_t at = dots_its.size() - dots + e;
          xi.push_back(x.shape[t.ellipsis + e] == 1 && ellipsis[at] != 1 ? ir::affine(0) : ir::idx(dots_its[at].name));
        }
      if (d < t.letters.size()) xi.push_back(ir::idx(name_of(t.letters[d])));
    }
    body = body ? body * x.read(xi) : x.read(xi);
  }
  n.define(0, ir::make_scope(traversal, summation, body), xs[0].type);
}

inline converter einsum_converter() { return {"Einsum", 12, {{"equation", attr_string}}, {}, convert_einsum}; }

}  // namespace ein::onnx::operators
