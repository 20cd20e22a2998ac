// Conv2d: O[n, h, w, f] = Σ_{c,r,s} A[n, sh·h + dh·r − ph, sw·w + dw·s − pw, c] · K[r, s, f, c],
// any layout of A, K and O, with padding, stride, dilation and groups inferred.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ein/match/operators/matmul.hpp"

namespace ein::match::operators {

/// True when, skipping extent-1 dimensions, `strides` taken in the order `perm` do not increase.
inline bool stride_order(const std::array<std::int64_t, 4>& strides,
                         const std::array<std::int64_t, 4>& extents, std::array<int, 4> perm) {
  std::int64_t prev = -1;
  for (int d : perm) {
    if (extents[d] == 1) continue;
    if (prev >= 0 && strides[d] > prev) return false;
    prev = strides[d];
  }
  return true;
}

/// True when `strides` are the packed row-major strides of `extents` taken in the order `perm`
/// (strides of extent-1 dimensions are free).
inline bool packed(const std::array<std::int64_t, 4>& strides,
                   const std::array<std::int64_t, 4>& extents, std::array<int, 4> perm) {
  std::int64_t expect = 1;
  for (int j = 3; j >= 0; --j) {
    int d = perm[j];
    if (extents[d] != 1 && strides[d] != expect) return false;
    expect *= extents[d];
  }
  return true;
}

/// Gives extent-1 dimensions (whose stride nothing constrains) the stride of an outermost
/// dimension, so that descriptors built from them are valid and never overlap.
inline void fill_unit_strides(std::array<std::int64_t, 4>& strides,
                              const std::array<std::int64_t, 4>& extents) {
  std::int64_t outer = 1;
  for (int d = 0; d < 4; ++d)
    if (extents[d] > 1) outer = std::max(outer, strides[d] * extents[d]);
  for (int d = 0; d < 4; ++d)
    if (extents[d] == 1) strides[d] = outer;
}

/// Fills the strides of extent-1 dimensions and names the layout of x and y ((n,c,h,w) and
/// (n,k,p,q) strides) and of the filter.
inline void name_layouts(conv_attrs& a) {
  std::array<std::int64_t, 4> xe{a.n, a.c, a.h, a.w}, ye{a.n, a.k, a.p, a.q},
      we{a.k, a.filter_channels(), a.r, a.s};
  fill_unit_strides(a.x_strides, xe);
  fill_unit_strides(a.y_strides, ye);
  fill_unit_strides(a.w_strides, we);
  auto both = [&](std::array<int, 4> perm) {
    return stride_order(a.x_strides, xe, perm) && stride_order(a.y_strides, ye, perm);
  };
  a.data_format = both({0, 1, 2, 3}) ? "nchw" : both({0, 2, 3, 1}) ? "nhwc" : "strided";
  a.filter_format = packed(a.w_strides, we, {0, 1, 2, 3})   ? "kcrs"
                    : packed(a.w_strides, we, {0, 2, 3, 1}) ? "krsc"
                                                            : "strided";
}

/// One spatial dimension of a convolution's input, read as a·o + b·r + c0 (o an output
/// iterator, r a kernel iterator or none).
struct spatial_dim {
  std::size_t dim = 0;
  bool real = true;  // false: a virtual extent-1 dimension (1-D convolutions)
  std::string out_it, kernel_it;
  std::int64_t a = 1, b = 1, c0 = 0;
};

/// Library view of one spatial dimension: the rows actually read become the input view
/// [start, start + extent) with padding pad/pad_end, such that the library's output size
/// floor((extent + pad + pad_end − b·(R−1) − 1) / a) + 1 equals the scope's P.
struct spatial_view {
  std::int64_t start = 0, extent = 1, pad = 0, pad_end = 0;
};

inline std::optional<spatial_view> view_rows(std::int64_t H, std::int64_t P, std::int64_t R,
                                             std::int64_t a, std::int64_t b, std::int64_t c0) {
  std::int64_t hi = a * (P - 1) + b * (R - 1) + c0;
  spatial_view v;
  v.start = std::max<std::int64_t>(0, c0);
  v.pad = std::max<std::int64_t>(0, -c0);
  v.extent = std::min(H, hi + 1) - v.start;
  if (v.extent <= 0) return std::nullopt;
  auto out_size = [&](std::int64_t pad_end) {
    std::int64_t num = v.extent + v.pad + pad_end - b * (R - 1) - 1;
    return num < 0 ? -1 : num / a + 1;
  };
  std::int64_t needed = std::max<std::int64_t>(0, hi - (H - 1));
  // Symmetric padding when it gives the same output size: the legacy cuDNN API needs it.
  if (v.pad >= needed && out_size(v.pad) == P) {
    v.pad_end = v.pad;
  } else {
    v.pad_end = needed;
    if (out_size(needed) != P) return std::nullopt;
  }
  return v;
}

/// The dimensions of an access that read at most one iterator of `outer` (coefficient > 0), at
/// most one of `inner` (coefficient of sign `inner_sign`), at least one of the two, and a
/// constant, where no iterator is read by another dimension: the candidate spatial dimensions.
inline std::vector<spatial_dim> find_spatial(const view& x, const std::vector<std::string>& outer,
                                             const std::vector<std::string>& inner,
                                             int inner_sign) {
  auto in = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  auto only_here = [&](const std::string& it, std::size_t d) {
    for (std::size_t e = 0; e < x.index.size(); ++e)
      if (e != d && x.index[e].uses(it)) return false;
    return true;
  };
  std::vector<spatial_dim> found;
  for (std::size_t d = 0; d < x.index.size(); ++d) {
    spatial_dim s;
    s.dim = d;
    s.c0 = x.index[d].constant();
    bool ok = !x.index[d].terms().empty();
    for (auto& [at, c] : x.index[d].terms()) {
      ok = ok && at.k == ir::atom::kind::iter && only_here(at.name, d);
      if (ok && s.out_it.empty() && in(outer, at.name) && c > 0)
        s.out_it = at.name, s.a = c;
      else if (ok && s.kernel_it.empty() && in(inner, at.name) && c * inner_sign > 0)
        s.kernel_it = at.name, s.b = c;
      else
        ok = false;
    }
    if (ok) found.push_back(s);
  }
  return found;
}

/// The candidate pairs (h, w) of spatial dimensions, most plausible first. Every dimension that
/// reads both an output and a kernel iterator (h + r) must be in the pair, and one of the pair
/// reads a kernel iterator, or both read an output iterator at a stride above 1 (2h, 2w: a
/// strided 1×1 convolution). A dimension reading only one of them is a spatial dimension of
/// extent 1 on the other side (a k×1 kernel, a 1-wide output) or a batch or channel dimension;
/// only the layout tells, so the partner preferred is one with an output iterator, after the
/// other, adjacent; a virtual extent-1 partner (a 1-D convolution) comes last.
inline std::vector<std::array<spatial_dim, 2>> spatial_pairs(const std::vector<spatial_dim>& cand) {
  auto full = [](const spatial_dim& s) { return !s.out_it.empty() && !s.kernel_it.empty(); };
  std::size_t fulls = static_cast<std::size_t>(std::count_if(cand.begin(), cand.end(), full));
  struct scored {
    std::array<spatial_dim, 2> pair;
    std::tuple<int, int, int, std::size_t> key;
  };
  std::vector<scored> pairs;
  auto consider = [&](const spatial_dim& a, const spatial_dim& b) {
    int f = full(a) + (b.real && full(b));
    bool kernel = !a.kernel_it.empty() || (b.real && !b.kernel_it.empty());
    // two output iterators read at strides above 1 and no kernel iterator: a 1×1 filter at that
    // stride (ResNet's downsampling), which is no GEMM of the tensors as they are
    bool strided = b.real && a.kernel_it.empty() && b.kernel_it.empty() && a.a > 1 && b.a > 1;
    if (static_cast<std::size_t>(f) != fulls || !(kernel || strided)) return;
    // the partner: the dimension of the pair that is not full (b when both are)
    bool b_partner = full(a) || !b.real || !full(b);
    const spatial_dim& partner = b_partner ? b : a;
    int no_out = partner.real && partner.out_it.empty();
    int before = partner.real && !b_partner;
    std::size_t gap = b.real ? b.dim - a.dim : 99;
    pairs.push_back({{a, b}, {-f, no_out + 2 * !b.real, before, gap}});
  };
  spatial_dim virtual_dim;
  virtual_dim.real = false;
  for (std::size_t i = 0; i < cand.size(); ++i) {
    for (std::size_t j = i + 1; j < cand.size(); ++j) consider(cand[i], cand[j]);
    consider(cand[i], virtual_dim);
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const scored& a, const scored& b) { return a.key < b.key; });
  std::vector<std::array<spatial_dim, 2>> out;
  for (auto& p : pairs) out.push_back(p.pair);
  return out;
}

inline std::vector<std::string> without(std::vector<std::string> v,
                                        const std::array<spatial_dim, 2>& sp, bool kernel) {
  for (auto& s : sp) {
    auto& name = kernel ? s.kernel_it : s.out_it;
    if (!name.empty()) v.erase(std::remove(v.begin(), v.end(), name), v.end());
  }
  return v;
}

/// The strides of x's channels, w's filters and y's filters of a convolution whose merged
/// channels within a group `gc` (x, w), filters within a group `gf` (w, y) and groups `gg`
/// (x, w, y) are given: a library's groups partition its channels and filters, so a group steps
/// over c/G channels of x and k/G filters of w and y. Nothing when the strides of the groups say
/// otherwise. Without groups (`gg` of extent 1) the channels' and filters' own strides.
struct channel_strides {
  std::int64_t x_channel = 0, w_filter = 0, y_filter = 0;
};
inline std::optional<channel_strides> group_strides(const merged& gc, const merged& gf, const merged& gg) {
  // a group of one channel (depthwise) or one filter steps as its group does
  channel_strides r{gc.extent > 1 ? gc.stride[0] : gg.stride[0], gf.extent > 1 ? gf.stride[0] : gg.stride[1],
                    gf.extent > 1 ? gf.stride[1] : gg.stride[2]};
  if (gg.extent > 1 && (gg.stride[0] != gc.extent * r.x_channel || gg.stride[1] != gf.extent * r.w_filter ||
                        gg.stride[2] != gf.extent * r.y_filter))
    return std::nullopt;
  return r;
}

/// The dimensions of `v` other than the real ones of `sp` (true: the rest), where each of them
/// stays in bounds over `it`; none where one does not.
inline std::optional<std::vector<bool>> spatial_rest(const view& v, const std::array<spatial_dim, 2>& sp,
                                                     const loops& it) {
  std::vector<bool> rest(v.index.size(), true);
  for (auto& s : sp)
    if (s.real) rest[s.dim] = false;
  for (std::size_t d = 0; d < rest.size(); ++d)
    if (rest[d] && !v.dim_in_bounds(d, it)) return std::nullopt;
  return rest;
}

/// Conv attributes for one choice of spatial dimensions.
inline std::optional<instance> conv_for(const binding& bd, const std::array<spatial_dim, 2>& sp) {
  const view &x = bd.in[0], &wt = bd.in[1], &y = bd.out;
  auto& it = bd.iters;
  const auto in_bounds = spatial_rest(x, sp, it);
  if (!in_bounds) return std::nullopt;
  const std::vector<bool>& rest = *in_bounds;
  auto gn = merge(without(bd.column_of("n"), sp, false), {&x, &y}, it, {rest, {}});
  auto gc = merge(without(bd.column_of("c"), sp, true), {&x, &wt}, it, {rest, {}});
  auto gf = merge(bd.column_of("f"), {&wt, &y}, it);
  auto gg = merge(bd.column_of("g"), {&x, &wt, &y}, it, {rest, {}, {}});
  if (!gn || !gc || !gf || !gg) return std::nullopt;
  auto channels = group_strides(*gc, *gf, *gg);
  if (!channels) return std::nullopt;
  conv_attrs a;
  a.groups = gg->extent;
  a.n = gn->extent, a.c = a.groups * gc->extent, a.k = a.groups * gf->extent, a.alpha = bd.alpha;
  std::int64_t x_base = x.base(rest);
  std::array<std::int64_t, 2> ext{}, kern{}, out{}, xs{}, ws{}, ys{}, pad{}, pad_end{}, st{}, dil{};
  for (int j = 0; j < 2; ++j) {
    auto& s = sp[j];
    if (!s.real) {
      ext[j] = kern[j] = out[j] = xs[j] = ws[j] = ys[j] = st[j] = dil[j] = 1;
      continue;
    }
    std::int64_t R = s.kernel_it.empty() ? 1 : it.at(s.kernel_it).extent;
    std::int64_t P = s.out_it.empty() ? 1 : it.at(s.out_it).extent;
    auto v = view_rows(x.shape[s.dim], P, R, s.a, s.b, s.c0);
    if (!v) return std::nullopt;
    ws[j] = s.kernel_it.empty() ? 1 : wt.coefficient(s.kernel_it);
    if (ws[j] <= 0) return std::nullopt;
    ext[j] = v->extent, kern[j] = R, out[j] = P, pad[j] = v->pad, pad_end[j] = v->pad_end;
    st[j] = s.a, dil[j] = s.kernel_it.empty() ? 1 : s.b;
    xs[j] = x.strides[s.dim], ys[j] = s.out_it.empty() ? 1 : y.coefficient(s.out_it);
    x_base += v->start * x.strides[s.dim];
  }
  a.h = ext[0], a.w = ext[1], a.r = kern[0], a.s = kern[1], a.p = out[0], a.q = out[1];
  a.pad_h = pad[0], a.pad_w = pad[1], a.pad_h_end = pad_end[0], a.pad_w_end = pad_end[1];
  a.stride_h = st[0], a.stride_w = st[1], a.dilation_h = dil[0], a.dilation_w = dil[1];
  a.x_strides = {gn->stride[0], channels->x_channel, xs[0], xs[1]};
  a.w_strides = {channels->w_filter, gc->stride[1], ws[0], ws[1]};
  a.y_strides = {gn->stride[1], channels->y_filter, ys[0], ys[1]};
  name_layouts(a);
  instance r;
  r.kind = op_kind::conv2d;
  bind_operands(r, bd, {x_base, wt.base()});
  r.inputs[0].role = "x", r.inputs[1].role = "w", r.output.role = "y";
  double e = static_cast<double>(ir::element_bytes(r.type));
  double n = static_cast<double>(a.n), c = static_cast<double>(a.c), k = static_cast<double>(a.k),
         pq = static_cast<double>(a.p * a.q), rs = static_cast<double>(a.r * a.s),
         cg = static_cast<double>(a.filter_channels());
  r.flops = 2 * n * k * pq * cg * rs;
  r.bytes = e * (n * c * static_cast<double>(a.h * a.w) + k * cg * rs + n * k * pq);
  r.grid = {a.groups, a.n * a.p * a.q, a.k / a.groups};
  r.attrs = a;
  return r;
}

/// The element of strided 4-D tensor `s` at (i0, i1, i2, i3).
inline std::int64_t at(const std::array<std::int64_t, 4>& s, std::int64_t i0, std::int64_t i1, std::int64_t i2,
                       std::int64_t i3) {
  return i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3];
}

/// Sets to 0 each element of the 4-d tensor at `t` of extents `e` laid out with `s`.
inline void zero(double* t, const std::array<std::int64_t, 4>& s, const std::array<std::int64_t, 4>& e) {
  for (std::int64_t i0 = 0; i0 < e[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < e[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < e[2]; ++i2)
        for (std::int64_t i3 = 0; i3 < e[3]; ++i3) t[at(s, i0, i1, i2, i3)] = 0;
}

/// Calls f(n, k, p, q, c, r, s, h, w) for every in-range pair of the convolution `a`: input row
/// h = p·stride + r·dilation − pad inside [0, h), likewise for columns; c is the filter's channel
/// (a.input_channel(k, c) the channel of x it reads).
template <class F>
void conv_pairs(const conv_attrs& a, F f) {
  for (std::int64_t n = 0; n < a.n; ++n)
    for (std::int64_t k = 0; k < a.k; ++k)
      for (std::int64_t p = 0; p < a.p; ++p)
        for (std::int64_t q = 0; q < a.q; ++q)
          for (std::int64_t c = 0; c < a.filter_channels(); ++c)
            for (std::int64_t r = 0; r < a.r; ++r)
              for (std::int64_t s = 0; s < a.s; ++s) {
                std::int64_t h = p * a.stride_h + r * a.dilation_h - a.pad_h;
                std::int64_t v = q * a.stride_w + s * a.dilation_w - a.pad_w;
                if (h >= 0 && h < a.h && v >= 0 && v < a.w) f(n, k, p, q, c, r, s, h, v);
              }
}

/// cuDNN's forward convolution: y[n,k,p,q] = alpha Σ x[n,g·c/G + c',h,w] · w[k,c',r,s] (g: k's group).
inline void conv2d_execute(const instance& op, const double* x, const double* w, double* y) {
  auto& a = op.conv();
  zero(y, a.y_strides, {a.n, a.k, a.p, a.q});
  conv_pairs(a, [&](auto n, auto k, auto p, auto q, auto c, auto r, auto s, auto h, auto v) {
    y[at(a.y_strides, n, k, p, q)] +=
        a.alpha * w[at(a.w_strides, k, c, r, s)] * x[at(a.x_strides, n, a.input_channel(k, c), h, v)];
  });
}

namespace detail {

// `e` with iterator f replaced by d·q + r, ⌊f / d⌋ by q and f mod d by r; nothing when f is read
// in any other way (inside another quotient).
inline std::optional<ir::affine> split_quotient(const ir::affine& e, const std::string& f, std::int64_t d,
                                                const std::string& q, const std::string& r) {
  const ir::affine whole = ir::idx(f);
  ir::affine out(e.constant());
  for (auto& [at, c] : e.terms()) {
    if (at.k == ir::atom::kind::iter) {
      out = out + (at.name == f ? ir::idx(q) * d + ir::idx(r) : ir::idx(at.name)) * c;
    } else if (*at.arg == whole && at.divisor == d) {
      out = out + ir::idx(at.k == ir::atom::kind::floordiv ? q : r) * c;
    } else {
      if (at.arg->uses(f)) return std::nullopt;
      out = out + (at.k == ir::atom::kind::floordiv ? at.arg->floordiv(at.divisor) : at.arg->mod(at.divisor)) * c;
    }
  }
  return out;
}

// The iterator of the group column that x reads as ⌊f / d⌋ (d a proper divisor of its extent), and d.
inline std::optional<std::pair<std::string, std::int64_t>> filter_quotient(const binding& b) {
  for (auto& f : b.column_of("g"))
    for (auto& e : b.in[0].index)
      for (auto& [at, c] : e.terms())
        if (at.k == ir::atom::kind::floordiv && *at.arg == ir::idx(f) && b.iters.at(f).extent % at.divisor == 0 &&
            b.iters.at(f).extent > at.divisor)
          return std::pair{f, at.divisor};
  return std::nullopt;
}

}  // namespace detail

/// A grouped convolution as ONNX's Conv and ops::grouped_conv2d write it reads channel
/// ⌊f / d⌋·(c/G) + c of x for filter f, d = k/G filters a group: f is read by x, w and y alike (a
/// group iterator) but through a quotient in x, which no stride describes. Splitting f = d·g + j
/// over g in [0, k/d), j in [0, d) reads ⌊f / d⌋ as g: the binding with g a group iterator and j
/// a filter within its group, every view reading d·g + j where it read f. Nothing when no group
/// iterator is read so, or f is also read otherwise inside a quotient.
/// Example: L_{n,f:[0,8),p,q} Σ_{c:[0,2),r,s} X[n, 2·⌊f / 4⌋ + c, p + r, q + s] · W[f, c, r, s]
/// (4 channels, 8 filters, 2 groups) splits f into f/4 (2 groups) and f%4 (4 filters each).
inline std::optional<binding> split_filter_groups(const binding& b) {
  auto found = detail::filter_quotient(b);
  if (!found) return std::nullopt;
  auto [f, d] = *found;
  const std::string q = f + "/" + std::to_string(d), r = f + "%" + std::to_string(d);
  if (b.iters.count(q) || b.iters.count(r)) return std::nullopt;
  binding split = b;
  split.iters.erase(f);
  split.iters[q] = {q, 0, b.iters.at(f).extent / d, false};
  split.iters[r] = {r, 0, d, false};
  std::vector<view*> views;
  for (auto& v : split.in) views.push_back(&v);
  views.push_back(&split.out);
  for (auto* v : views) {
    v->linear = true;
    v->used.clear();
    for (auto& e : v->index) {
      auto s = detail::split_quotient(e, f, d, q, r);
      if (!s) return std::nullopt;
      e = *s;
      v->linear = v->linear && e.is_linear();
      e.collect_iterators(v->used);
    }
  }
  // f leaves its column; g and j go to the columns of what reads them
  for (auto& col : split.columns) std::erase(col, f);
  for (auto& name : {q, r}) {
    unsigned mask = 0;
    for (std::size_t t = 0; t < split.in.size(); ++t)
      if (split.in[t].uses(name)) mask |= 1u << t;
    std::size_t c = 0;
    while (c < b.op->columns.size() && (b.op->columns[c].inputs != mask || !b.op->columns[c].out)) ++c;
    if (c == b.op->columns.size()) return std::nullopt;
    split.columns[c].push_back(name);
  }
  return split;
}

/// Step 3 for Conv: the input's spatial dimensions are those that read an output iterator and
/// a kernel iterator together (h + r); their coefficients give stride and dilation, their
/// constants the padding; the other iterators of each column merge into n, c, f and the groups
/// (iterators x, w and y all read: a grouped convolution, binding::column_of("g")), a group
/// read through a quotient split first (split_filter_groups).
inline std::optional<instance> conv2d_infer(const binding& b) {
  if (!b.in[0].linear) {
    auto split = split_filter_groups(b);
    return split ? conv2d_infer(*split) : std::nullopt;
  }
  if (!b.in[1].in_bounds(b.iters)) return std::nullopt;
  for (auto& sp : spatial_pairs(find_spatial(b.in[0], b.column_of("n"), b.column_of("c"), 1)))
    if (auto r = conv_for(b, sp)) return r;
  return std::nullopt;
}

/// Conv canonical expression (NHWC, RSKC filter as in Table 2), with stride, dilation, padding.
inline ir::scope_ptr conv2d_canonical(const std::map<std::string, std::int64_t>& size) {
  auto n = size_or(size, "n", 2), h = size_or(size, "h", 5), w = size_or(size, "w", 4),
       f = size_or(size, "f", 3), c = size_or(size, "c", 2), r = size_or(size, "r", 3),
       s = size_or(size, "s", 3), st = size_or(size, "stride", 1),
       dl = size_or(size, "dilation", 1), pd = size_or(size, "pad", 1);
  ir::tensor A{"A", ir::dtype::f32, {n, h, w, c}}, K{"K", ir::dtype::f32, {r, s, f, c}};
  std::int64_t p = (h + 2 * pd - dl * (r - 1) - 1) / st + 1,
               q = (w + 2 * pd - dl * (s - 1) - 1) / st + 1;
  using ir::idx;
  return ir::make_scope({{"n", 0, n}, {"h", 0, p}, {"w", 0, q}, {"f", 0, f}},
                        {{"c", 0, c}, {"r", 0, r}, {"s", 0, s}},
                        ir::make_access(A, {idx("n"), idx("h") * st + idx("r") * dl - pd,
                                            idx("w") * st + idx("s") * dl - pd, idx("c")}) *
                            ir::make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

/// Table 2 row: n, h, w in {A, O}; f in {K, O}; c, r, s in {A, K} summed; and, beyond Table 2,
/// the groups g in {A, K, O} (a grouped convolution; no group iterator: one group). The group
/// column holds any number of iterators, so that a convolution without groups is no further from
/// Conv2d than Table 2 says (distance).
inline operator_def conv2d() {
  return {op_kind::conv2d,
          body_kind::product,
          {"A", "K"},
          {{0b01, true, {"n", "h", "w"}, true},
           {0b10, true, {"f"}, false},
           {0b11, false, {"c", "r", "s"}, true},
           {0b11, true, {"g"}, false, true}},
          conv2d_canonical,
          conv2d_infer,
          conv2d_execute};
}

}  // namespace ein::match::operators
