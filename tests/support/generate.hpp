// Random well-formed expressions for differential testing: free-form scopes and operator-shaped
// families (matmul, convolution, transposed convolution, G2BMM), each with the input tensors it reads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/visit.hpp"

namespace ein::eval {

/// Size parameters of generated expressions. The fuzzer shrinks a failure by lowering them and
/// generating again from the same seed.
struct generate_options {
  int max_rank = 5;               // traversal iterators of a scope: 1..max_rank
  int max_extent = 9;             // iterator extents: 1..max_extent
  int max_summation = 3;          // summation iterators of a scope: 0..max_summation
  int max_nesting = 2;            // scopes nested inside scopes
  int max_body = 3;               // depth of a body's expression tree
  std::int64_t max_work = 20000;  // bound on the interpreter's work (see `work`)
  // percent of free-form scopes that take a max or min, and of binary nodes that are `max` or
  // `min`; 0 draws exactly what it drew before reductions other than sums existed
  int max_percent = 0;
};

/// A generated expression and the tensors it reads (inputs and weights, shared by accesses).
struct generated {
  ir::scope_ptr scope;
  std::vector<ir::tensor> inputs;
  std::string family;  // "random", "matmul", "matmul_adapter", "conv", "conv_relu", "g2bmm", "conv_transpose"
};

/// Number of body nodes of a scope, nested scopes included.
inline std::size_t node_count(const ir::scope& s) {
  struct count : ir::visitor<count> {
    std::size_t n = 0;
    void visit_constant(const ir::constant&) { ++n; }
    void visit_access(const ir::access& a) { ++n, visitor::visit_access(a); }
    void visit_unary(const ir::unary& u) { ++n, visitor::visit_unary(u); }
    void visit_binary(const ir::binary& b) { ++n, visitor::visit_binary(b); }
  };
  count c;
  c.visit(s);
  return c.n;
}

/// The interpreter's work for a scope: points × summation points × body nodes, nested scopes
/// included. Saturates instead of overflowing.
inline std::int64_t work(const ir::scope& s);

namespace detail {

inline std::int64_t box_size(const std::vector<ir::iterator>& box) {
  std::int64_t n = 1;
  for (auto& i : box) n = std::min<std::int64_t>(n * std::max<std::int64_t>(i.extent(), 0), 1LL << 40);
  return n;
}

// The work of the scopes `e` reads through its own accesses (each counts its nested ones).
inline std::int64_t nested_work(const ir::expr& e) {
  std::int64_t w = 0;
  ir::for_each_access(e, [&](const ir::access& a) {
    if (auto* s = std::get_if<ir::scope_ptr>(&a.source)) w += work(**s);
  });
  return w;
}

// Inclusive range of an index over a box of iterator ranges (interval arithmetic).
inline std::pair<std::int64_t, std::int64_t> index_range(
    const ir::affine& a, const std::map<std::string, std::pair<std::int64_t, std::int64_t>>& box) {
  std::int64_t lo = a.constant(), hi = a.constant();
  for (auto& [at, c] : a.terms()) {
    std::int64_t l = 0, h = 0;
    if (at.k == ir::atom::kind::iter) {
      std::tie(l, h) = box.at(at.name);
    } else if (at.k == ir::atom::kind::floordiv) {
      auto [al, ah] = index_range(*at.arg, box);
      l = ir::floor_div(al, at.divisor), h = ir::floor_div(ah, at.divisor);
    } else {
      l = 0, h = at.divisor - 1;
    }
    lo += c > 0 ? c * l : c * h;
    hi += c > 0 ? c * h : c * l;
  }
  return {lo, hi};
}

class generator {
 public:
  generator(std::uint64_t seed, const generate_options& o) : rng_(seed), opt_(o) {}

  // Draws until the work fits; after many draws (a tiny max_work), the lightest one seen.
  generated run() {
    generated best;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      tensors_.clear();
      iterators_ = 0;
      auto g = one();
      if (work(*g.scope) <= opt_.max_work) return g;
      if (!best.scope || work(*g.scope) < work(*best.scope)) best = std::move(g);
    }
    return best;
  }

  ir::program program();

 private:
  generated one() {
    int family = static_cast<int>(rng_.integer(0, 9));
    if (family == 5) return matmul();
    if (family == 6 || family == 7) return conv(family == 7 && opt_.max_nesting > 0);
    if (family == 8) return g2bmm();
    if (family == 9) return conv_transpose();
    return {random_scope(0, -1), tensors_, "random"};
  }

  using box_map = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;

  std::int64_t extent() { return rng_.integer(1, std::max(1, opt_.max_extent)); }
  bool chance(int percent) { return rng_.integer(0, 99) < percent; }
  std::string fresh_iterator() { return "i" + std::to_string(iterators_++); }

  ir::tensor new_tensor(std::vector<std::int64_t> shape) {
    ir::tensor t{std::string(1, static_cast<char>('A' + tensors_.size() % 26)) +
                     (tensors_.size() >= 26 ? std::to_string(tensors_.size() / 26) : ""),
                 ir::dtype::f32, std::move(shape),
                 chance(50) ? ir::tensor_role::input : ir::tensor_role::weight};
    tensors_.push_back(t);
    return t;
  }

  // Extents with a bounded product: the largest shrinks until the box fits.
  std::vector<ir::iterator> box(int rank, std::int64_t limit, bool negative_lo) {
    std::vector<ir::iterator> b;
    for (int d = 0; d < rank; ++d) {
      std::int64_t lo = negative_lo && chance(30) ? -rng_.integer(1, 2) : 0;
      b.push_back({fresh_iterator(), lo, lo + extent()});
    }
    while (box_size(b) > limit) {
      auto big = std::max_element(b.begin(), b.end(),
                                  [](auto& x, auto& y) { return x.extent() < y.extent(); });
      big->hi -= (big->extent() + 1) / 2;
    }
    return b;
  }

  ir::scope_ptr random_scope(int nesting, int rank) {
    if (rank < 0) rank = static_cast<int>(rng_.integer(1, std::max(1, opt_.max_rank)));
    // A nested scope is a closed term, so it may reuse the names of the scope around it; rules
    // must not confuse the two.
    int names_from = iterators_;
    if (nesting > 0 && chance(30)) iterators_ = 0;
    auto traversal = box(rank, nesting == 0 ? 400 : 120, nesting > 0);
    auto summation = box(static_cast<int>(rng_.integer(0, std::max(0, opt_.max_summation))),
                         nesting == 0 ? 40 : 12, chance(30));
    iterators_ = std::max(iterators_, names_from);
    box_map b;
    std::vector<std::string> names;
    for (auto* v : {&traversal, &summation})
      for (auto& i : *v) b[i.name] = {i.lo, i.hi - 1}, names.push_back(i.name);
    auto body = expression(b, names, nesting, opt_.max_body);
    auto s = ir::make_scope(std::move(traversal), std::move(summation), std::move(body));
    if (opt_.max_percent > 0 && chance(opt_.max_percent)) {
      auto m = ir::make_scope(s->traversal, s->summation, s->body,
                              chance(50) ? ir::reduction::max : ir::reduction::min);
      if (every_element_has_a_point(*m)) return m;
    }
    return s;
  }

  // Whether no element of a max or min scope is left without a point: rules reason over the
  // reals, and the -inf of an empty max times a padding 0 is not one (a derived scope may still
  // hold -inf, as an inner part of a split max does, where only a max reads it).
  bool every_element_has_a_point(const ir::scope& s) const {
    bindings ones;
    for (auto& t : tensors_) ones[t.name] = dense(t.shape), ones[t.name].data.assign(ones[t.name].data.size(), 1.0);
    for (double v : evaluate(s, ones).data)
      if (std::isinf(v)) return false;
    return true;
  }

  // Values stay bounded: exp only of tanh, division only by constants away from zero.
  ir::expr expression(const box_map& b, const std::vector<std::string>& names, int nesting,
                      int depth) {
    if (depth <= 0 || chance(35)) {
      if (chance(8)) return ir::make_constant(rng_.integer(1, 4) * (chance(50) ? 0.5 : -0.75));
      return access(b, names, nesting);
    }
    int k = static_cast<int>(rng_.integer(0, 99));
    auto sub = [&] { return expression(b, names, nesting, depth - 1); };
    if (k < 65) {
      static constexpr ir::binary_op ops[] = {ir::binary_op::add, ir::binary_op::sub,
                                              ir::binary_op::mul, ir::binary_op::mul};
      auto op = ops[rng_.integer(0, 3)];
      if (opt_.max_percent > 0 && chance(opt_.max_percent))
        op = chance(50) ? ir::binary_op::max : ir::binary_op::min;
      auto l = sub();
      return ir::make_binary(op, std::move(l), sub());
    }
    if (k < 90) {
      static constexpr ir::unary_fn fns[] = {ir::unary_fn::neg, ir::unary_fn::relu,
                                             ir::unary_fn::sigmoid, ir::unary_fn::tanh,
                                             ir::unary_fn::exp};
      auto f = fns[rng_.integer(0, 4)];
      auto a = sub();
      if (f == ir::unary_fn::exp) a = ir::make_unary(ir::unary_fn::tanh, std::move(a));
      return ir::make_unary(f, std::move(a));
    }
    return sub() / ir::make_constant(chance(50) ? 2.0 : -3.0);
  }

  ir::affine index(const std::vector<std::string>& names) {
    ir::affine a(rng_.integer(-2, 2));
    int terms = static_cast<int>(rng_.integer(chance(10) ? 0 : 1, 2));
    for (int t = 0; t < terms && !names.empty(); ++t) {
      std::int64_t c = chance(75) ? 1 : rng_.integer(2, 3);
      if (chance(10)) c = -c;
      a = a + ir::idx(names[static_cast<std::size_t>(rng_.integer(0, static_cast<std::int64_t>(names.size()) - 1))]) * c;
    }
    if (!a.is_constant() && chance(12)) {
      std::int64_t d = rng_.integer(2, 3);
      a = chance(50) ? a.floordiv(d) : a.mod(d);
    }
    return a;
  }

  ir::expr access(const box_map& b, const std::vector<std::string>& names, int nesting) {
    if (nesting < opt_.max_nesting && chance(20)) {
      int rank = static_cast<int>(rng_.integer(1, 3));
      auto inner = random_scope(nesting + 1, rank);
      std::vector<ir::affine> idx;
      for (int d = 0; d < rank; ++d) idx.push_back(index(names));
      return ir::make_access(std::move(inner), std::move(idx));
    }
    if (!tensors_.empty() && chance(45)) {
      auto t = tensors_[static_cast<std::size_t>(rng_.integer(0, static_cast<std::int64_t>(tensors_.size()) - 1))];
      std::vector<ir::affine> idx;
      for (std::size_t d = 0; d < t.shape.size(); ++d) idx.push_back(index(names));
      return ir::make_access(std::move(t), std::move(idx));
    }
    // A new tensor sized to the range its index reads, sometimes a little short: the reads past
    // either end are padding.
    int rank = static_cast<int>(rng_.integer(1, 4));
    std::vector<ir::affine> idx;
    std::vector<std::int64_t> shape;
    for (int d = 0; d < rank; ++d) {
      idx.push_back(index(names));
      auto [lo, hi] = index_range(idx.back(), b);
      (void)lo;
      shape.push_back(std::clamp<std::int64_t>(hi + 1 - (chance(40) ? 1 : 0), 1, 12));
    }
    return ir::make_access(new_tensor(std::move(shape)), std::move(idx));
  }

  generated matmul() {
    std::int64_t m = extent(), n = extent(), k = extent(),
                 batch = chance(40) ? rng_.integer(1, std::clamp(opt_.max_extent, 1, 3)) : 0;
    auto A = new_tensor(batch ? std::vector<std::int64_t>{batch, m, k} : std::vector<std::int64_t>{m, k});
    bool transposed = chance(50);
    auto B = new_tensor(batch ? std::vector<std::int64_t>{batch, k, n}
                              : (transposed ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n}));
    B.role = ir::tensor_role::weight;
    tensors_.back() = B;
    std::vector<ir::iterator> traversal;
    if (batch) traversal.push_back({"b", 0, batch});
    traversal.push_back({"m", 0, m});
    traversal.push_back({"n", 0, n});
    std::vector<ir::affine> ia{ir::idx("m"), ir::idx("k")},
        ib{transposed && !batch ? ir::idx("n") : ir::idx("k"), transposed && !batch ? ir::idx("k") : ir::idx("n")};
    if (batch) ia.insert(ia.begin(), ir::idx("b")), ib.insert(ib.begin(), ir::idx("b"));
    auto s = ir::make_scope(traversal, {{"k", 0, k}}, ir::make_access(A, ia) * ir::make_access(B, ib));
    if (chance(40)) return {with_adapter(s, A, ia, k, n), tensors_, "matmul_adapter"};
    return {s, tensors_, "matmul"};
  }

  // The product `s` of A read at `ia` plus a low-rank adapter over the same A, as a LoRA layer
  // reads once its products are joined: L {s}[x] + {L Σ_{q,k} A[ia]·P[q, k]·Q[n, q]}[x].
  ir::scope_ptr with_adapter(const ir::scope_ptr& s, const ir::tensor& A, const std::vector<ir::affine>& ia,
                             std::int64_t k, std::int64_t n) {
    std::int64_t rank = extent();
    auto P = new_tensor({rank, k}), Q = new_tensor({n, rank});
    auto adapter = ir::make_scope(s->traversal, {{"q", 0, rank}, {"k", 0, k}},
                                  ir::make_access(A, ia) * ir::make_access(P, {ir::idx("q"), ir::idx("k")}) *
                                      ir::make_access(Q, {ir::idx("n"), ir::idx("q")}));
    std::vector<ir::affine> at;
    for (auto& i : s->traversal) at.push_back(ir::idx(i.name));
    return ir::make_scope(s->traversal, {}, ir::make_access(s, at) + ir::make_access(adapter, at));
  }

  // A convolution with padding, stride and dilation, NHWC or NCHW, one time in five in 2 or 3
  // groups as ONNX's Conv writes them (filter f reads channel ⌊f / F_g⌋·C_g + c of its group);
  // with `relu`, an activation and a bias around it (the convolution becomes a nested scope).
  generated conv(bool relu) {
    auto upto = [&](std::int64_t k) { return rng_.integer(1, std::clamp<std::int64_t>(opt_.max_extent, 1, k)); };
    std::int64_t n = upto(2), h = extent(), w = extent(), cg = upto(4), fg = upto(4), r = upto(3), s = upto(3);
    std::int64_t stride = chance(70) ? 1 : 2, dilation = chance(75) ? 1 : 2;
    std::int64_t pad = rng_.integer(0, std::max<std::int64_t>(r, s) - 1);
    auto out = [&](std::int64_t x, std::int64_t k) {
      return std::max<std::int64_t>(1, (x + 2 * pad - dilation * (k - 1) - 1) / stride + 1);
    };
    std::int64_t oh = out(h, r), ow = out(w, s);
    bool nchw = chance(30);
    auto A = new_tensor({});
    auto K = new_tensor({});
    // drawn after the tensors, so that the draws of a convolution without groups are as they were
    std::int64_t groups = chance(20) ? rng_.integer(2, 3) : 1, c = groups * cg, f = groups * fg;
    A.shape = nchw ? std::vector<std::int64_t>{n, c, h, w} : std::vector<std::int64_t>{n, h, w, c};
    A.role = ir::tensor_role::input;
    K.shape = {r, s, f, cg};
    K.role = ir::tensor_role::weight;
    tensors_.end()[-2] = A;
    tensors_.back() = K;
    auto hi = ir::idx("h") * stride + ir::idx("r") * dilation - pad;
    auto wi = ir::idx("w") * stride + ir::idx("s") * dilation - pad;
    ir::affine channel = groups == 1 ? ir::idx("c") : ir::idx("f").floordiv(fg) * cg + ir::idx("c");
    std::vector<ir::affine> ia = nchw ? std::vector<ir::affine>{ir::idx("n"), channel, hi, wi}
                                      : std::vector<ir::affine>{ir::idx("n"), hi, wi, channel};
    std::vector<ir::iterator> traversal =
        nchw ? std::vector<ir::iterator>{{"n", 0, n}, {"f", 0, f}, {"h", 0, oh}, {"w", 0, ow}}
             : std::vector<ir::iterator>{{"n", 0, n}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, f}};
    auto conv = ir::make_scope(traversal, {{"r", 0, r}, {"s", 0, s}, {"c", 0, cg}},
                               ir::make_access(A, ia) *
                                   ir::make_access(K, {ir::idx("r"), ir::idx("s"), ir::idx("f"), ir::idx("c")}));
    if (!relu) return {conv, tensors_, "conv"};
    auto bias = new_tensor({f});
    std::vector<ir::affine> at;
    for (auto& i : traversal) at.push_back(ir::idx(i.name));
    auto body = ir::make_unary(ir::unary_fn::relu, ir::make_access(conv, at)) +
                ir::make_access(bias, {ir::idx("f")});
    return {ir::make_scope(traversal, {}, body), tensors_, "conv_relu"};
  }

  // A transposed convolution (NHWC, stride 1 to 3) as ops::conv_transpose2d writes it, a scatter:
  // y[n,h,w,f] = Σ_{u,v,c} x[n, (h + pad)/st − u, (w + pad)/st − v, c] ·
  //                         K[st·u + (h + pad) % st, st·v + (w + pad) % st, f, c].
  generated conv_transpose() {
    auto upto = [&](std::int64_t k) { return rng_.integer(1, std::clamp<std::int64_t>(opt_.max_extent, 1, k)); };
    std::int64_t n = upto(2), h = extent(), w = extent(), c = upto(4), f = upto(4), r = upto(4), s = upto(4);
    std::int64_t st = rng_.integer(1, 3), pad = rng_.integer(0, std::min(r, s) - 1), out_pad = rng_.integer(0, st - 1);
    auto x = new_tensor({n, h, w, c});
    x.role = ir::tensor_role::input;
    tensors_.back() = x;
    auto K = new_tensor({r, s, f, c});
    K.role = ir::tensor_role::weight;
    tensors_.back() = K;
    auto hh = ir::idx("h") + pad, ww = ir::idx("w") + pad;
    std::int64_t oh = std::max<std::int64_t>(1, (h - 1) * st - 2 * pad + r + out_pad);
    std::int64_t ow = std::max<std::int64_t>(1, (w - 1) * st - 2 * pad + s + out_pad);
    auto y = ir::make_scope(
        {{"n", 0, n}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, f}},
        {{"u", 0, (r + st - 1) / st}, {"v", 0, (s + st - 1) / st}, {"c", 0, c}},
        ir::make_access(x, {ir::idx("n"), hh.floordiv(st) - ir::idx("u"), ww.floordiv(st) - ir::idx("v"), ir::idx("c")}) *
            ir::make_access(K, {ir::idx("u") * st + hh.mod(st), ir::idx("v") * st + ww.mod(st), ir::idx("f"), ir::idx("c")}));
    return {y, tensors_, "conv_transpose"};
  }

  // G2BMM: C[b,i,w] = Σ_k A[b,i,k] · B[b, i + D·(w − W), k] for w in [0, 2W + 1).
  generated g2bmm() {
    auto upto = [&](std::int64_t k) { return rng_.integer(1, std::clamp<std::int64_t>(opt_.max_extent, 1, k)); };
    std::int64_t batch = upto(2), n = extent(), k = upto(4), width = upto(3), d = upto(2);
    auto A = new_tensor({batch, n, k});
    auto B = new_tensor({batch, n, k});
    auto s = ir::make_scope(
        {{"b", 0, batch}, {"i", 0, n}, {"w", 0, 2 * width + 1}}, {{"k", 0, k}},
        ir::make_access(A, {ir::idx("b"), ir::idx("i"), ir::idx("k")}) *
            ir::make_access(B, {ir::idx("b"), ir::idx("i") + ir::idx("w") * d - d * width, ir::idx("k")}));
    return {s, tensors_, "g2bmm"};
  }

  random_stream rng_;
  generate_options opt_;
  std::vector<ir::tensor> tensors_;
  int iterators_ = 0;
};

// The same scope reading tensor `to` wherever it read tensor `from`, at every depth. Every scope
// is a new one: the twin of a generated program is a definition of its own, and a plan computes
// the nested scopes it shares with another definition once, for both.
inline ir::scope_ptr rename_tensor(const ir::scope_ptr& s, const std::string& from, const ir::tensor& to) {
  struct rename : ir::mutator<rename> {
    const std::string& from;
    const ir::tensor& to;
    rename(const std::string& f, const ir::tensor& t) : from(f), to(t) {}
    ir::scope_ptr mutate_scope(const ir::scope_ptr& s) {
      return ir::make_scope(s->traversal, s->summation, mutate(s->body), s->reduce);
    }
    ir::expr mutate_access(const ir::access& a, const ir::expr& e) {
      auto* t = std::get_if<ir::tensor>(&a.source);
      if (t && t->name == from) return ir::make_access(to, a.index);
      return mutator::mutate_access(a, e);
    }
  };
  return rename(from, to).mutate(s);
}

// A producer, sometimes a twin of it with another weight (so shared-operand merging applies), and
// a consumer reading them elementwise through an activation (so expression fusion applies).
inline ir::program generator::program() {
  auto g = run();
  ir::program p{"generated", g.inputs, {}, {}};
  p.definitions.push_back({"d0", g.scope, ir::dtype::f32});
  auto as_tensor = [](const ir::definition& d) {
    return ir::tensor{d.name, d.type, d.value->shape(), ir::tensor_role::definition};
  };
  std::vector<ir::affine> at;
  for (auto& i : g.scope->traversal) at.push_back(ir::idx(i.name) + (chance(25) ? rng_.integer(-1, 1) : 0));
  auto body = ir::make_unary(chance(50) ? ir::unary_fn::relu : ir::unary_fn::tanh,
                             ir::make_access(as_tensor(p.definitions[0]), at));
  std::vector<const ir::tensor*> weights;
  for (auto& t : g.inputs)
    if (t.role == ir::tensor_role::weight) weights.push_back(&t);
  if (!weights.empty() && chance(60)) {
    auto w = *weights[static_cast<std::size_t>(rng_.integer(0, static_cast<std::int64_t>(weights.size()) - 1))];
    auto twin = w;
    twin.name = w.name + "_2";  // generated names have no underscore: fresh
    p.tensors.push_back(twin);
    p.definitions.push_back({"d1", rename_tensor(g.scope, w.name, twin), ir::dtype::f32});
    body = body + ir::make_access(as_tensor(p.definitions[1]), at) * ir::make_constant(0.5);
    if (chance(30)) p.outputs.push_back("d1");
  }
  std::vector<ir::iterator> traversal = g.scope->traversal;
  p.definitions.push_back({"out", ir::make_scope(traversal, {}, body), ir::dtype::f32});
  p.outputs.insert(p.outputs.begin(), "out");
  return p;
}

}  // namespace detail

inline std::int64_t work(const ir::scope& s) {
  std::int64_t points = detail::box_size(s.traversal) * std::max<std::int64_t>(detail::box_size(s.summation), 1);
  std::int64_t nodes = static_cast<std::int64_t>(node_count(s));
  std::int64_t own = points > (1LL << 40) / nodes ? (1LL << 40) : points * nodes;
  return std::min<std::int64_t>(own + detail::nested_work(s.body), 1LL << 40);
}

/// A random well-formed scope from `seed`: half free-form (ranks 1–max_rank, extents
/// 1–max_extent, strided/offset/padded indices, floor division and modulo by small constants,
/// nested scopes with negative lower bounds, shared tensors, bounded unary functions), half
/// operator-shaped (matmul, a matmul plus a low-rank adapter, convolution with
/// padding/stride/dilation, conv+relu+bias, G2BMM, a transposed convolution written as a scatter).
/// The same seed and options give the same expression.
/// @post `work(*result.scope) <= options.max_work` unless no draw of 1000 fits (then the
///       lightest draw).
inline generated generate(std::uint64_t seed, const generate_options& options = {}) {
  return detail::generator(seed, options).run();
}

/// A random program from `seed`: a generated expression `d0` (see `generate`), with 60%
/// probability a twin `d1` that reads another weight of the same shape, and an output `out`
/// applying an activation to them elementwise; `d1` is sometimes an output too.
inline ir::program generate_program(std::uint64_t seed, const generate_options& options = {}) {
  return detail::generator(seed, options).program();
}

/// Random values in [-1, 1) (never 0) for every tensor a generated expression reads.
inline bindings random_inputs(const generated& g, std::uint64_t seed) {
  random_stream rng(seed);
  bindings b;
  for (auto& t : g.inputs) b[t.name] = random_dense(t.shape, rng);
  return b;
}

}  // namespace ein::eval
