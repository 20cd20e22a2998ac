// Conv2d and ConvTranspose2d matching over generated layouts and geometries, checked by cuDNN-style
// forward and backward-data loops.
#include <doctest/doctest.h>

#include "match/check.hpp"

namespace conv_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

namespace {

// An access to a tensor whose dimensions are named `dims` (in storage order); `index` gives the
// index of each named dimension and `extent` its size.
expr named_access(const std::string& name, const std::vector<std::string>& dims,
                  const std::map<std::string, affine>& index,
                  const std::map<std::string, std::int64_t>& extent) {
  std::vector<std::int64_t> shape;
  std::vector<affine> idx_list;
  for (auto& d : dims) shape.push_back(extent.at(d)), idx_list.push_back(index.at(d));
  return make_access(f32(name, shape), idx_list);
}

std::vector<iterator> traversal(const std::vector<std::string>& order,
                                const std::map<std::string, std::int64_t>& ext) {
  std::vector<iterator> t;
  for (auto& n : order) t.push_back({n, 0, ext.at(n)});
  return t;
}

}  // namespace

TEST_CASE("conv2d: layouts, stride, dilation, padding, kernels, shifted and partial outputs") {
  const std::int64_t N = 2, C = 2, F = 3, H = 6, W = 5;
  const std::vector<std::vector<std::string>> x_layouts{{"n", "h", "w", "c"}, {"n", "c", "h", "w"}};
  const std::vector<std::vector<std::string>> w_layouts{
      {"r", "s", "f", "c"}, {"f", "c", "r", "s"}, {"f", "r", "s", "c"}};
  const std::vector<std::vector<std::string>> y_orders{{"n", "p", "q", "f"}, {"n", "f", "p", "q"}};
  int checked = 0;
  for (auto [R, S] : {std::pair<std::int64_t, std::int64_t>{3, 3}, {2, 3}, {3, 1}})
    for (std::int64_t st : {1, 2})
      for (std::int64_t dil : {1, 2})
        for (std::int64_t pad : {0, 1, 2})
          // variant 0: the library's output size, 1: origin shifted by +1, 2: one row fewer
          for (int variant : {0, 1, 2}) {
            if (variant == 1 && pad != 0) continue;
            std::int64_t shift = variant == 1 ? 1 : 0;
            std::int64_t P =
                (H - shift + 2 * pad - dil * (R - 1) - 1) / st + 1 - (variant == 2 ? 1 : 0);
            std::int64_t Q = (W + 2 * pad - dil * (S - 1) - 1) / st + 1;
            if (P < 2 || Q < 1) continue;
            std::map<std::string, std::int64_t> ext{{"n", N}, {"c", C}, {"f", F},
                                                    {"h", H}, {"w", W}, {"r", R},
                                                    {"s", S}, {"p", P}, {"q", Q}};
            std::map<std::string, affine> xi{{"n", idx("n")},
                                             {"c", idx("c")},
                                             {"h", idx("p") * st + idx("r") * dil - pad + shift},
                                             {"w", idx("q") * st + idx("s") * dil - pad}};
            std::map<std::string, affine> wi{
                {"r", idx("r")}, {"s", idx("s")}, {"f", idx("f")}, {"c", idx("c")}};
            for (std::size_t xl = 0; xl < x_layouts.size(); ++xl)
              for (std::size_t wl = 0; wl < w_layouts.size(); ++wl)
                for (std::size_t yl = 0; yl < y_orders.size(); ++yl)
                  for (int swap : {0, 1}) {
                    auto x = named_access("X", x_layouts[xl], xi, ext);
                    auto w = named_access("K", w_layouts[wl], wi, ext);
                    auto s = make_scope(traversal(y_orders[yl], ext),
                                        traversal({"c", "r", "s"}, ext), swap ? w * x : x * w);
                    auto i = expect_match(*s, op_kind::conv2d);
                    auto& a = i.conv();
                    CHECK(a.stride_h == st);
                    CHECK(a.p == P);
                    CHECK(a.q == Q);
                    CHECK(a.r == R);
                    CHECK(a.s == S);
                    CHECK(a.n == N);
                    CHECK(a.c == C);
                    CHECK(a.k == F);
                    if (R > 1) CHECK(a.dilation_h == dil);
                    if (variant == 0) CHECK(a.pad_h == pad);
                    if (variant == 0) CHECK(a.symmetric());
                    if (xl == yl) CHECK(a.data_format == (xl == 0 ? "nhwc" : "nchw"));
                    CHECK(a.filter_format == (wl == 0 ? "strided" : wl == 1 ? "kcrs" : "krsc"));
                    if (wl == 0) {  // a packed copy of the filter makes it a library format
                      auto r = repack_filter(i, swap ? "kcrs" : "krsc");
                      CHECK(r.op.conv().filter_format == (swap ? "kcrs" : "krsc"));
                      CHECK(semantic_error(*s, r.op) < 1e-12);
                    }
                    ++checked;
                  }
          }
  CHECK(checked > 500);
}

TEST_CASE("conv2d: the Conv3x3 of ResNet-18 (NHWC, padding 1) and a dilated CSRNet layer") {
  auto s = operators::conv2d_canonical({{"n", 1}, {"h", 7}, {"w", 7}, {"f", 8}, {"c", 4}});
  auto i = expect_match(*s, op_kind::conv2d);
  CHECK(i.conv().pad_h == 1);
  CHECK(i.conv().data_format == "nhwc");
  CHECK(i.flops == 2.0 * 7 * 7 * 8 * 4 * 9);
  auto d = operators::conv2d_canonical(
      {{"n", 1}, {"h", 9}, {"w", 9}, {"f", 4}, {"c", 3}, {"dilation", 2}, {"pad", 2}});
  auto j = expect_match(*d, op_kind::conv2d);
  CHECK(j.conv().dilation_w == 2);
  CHECK(j.conv().p == 9);
}

TEST_CASE("conv2d: a 1×1 filter at strides above 1 (ResNet's downsampling) in NHWC and NCHW") {
  int checked = 0;
  for (auto [sh, sw] : {std::pair<std::int64_t, std::int64_t>{2, 2}, {3, 2}, {2, 4}})
    for (std::int64_t H : {6, 7})
      for (std::size_t xl = 0; xl < 2; ++xl)
        for (int swap : {0, 1}) {
          const std::int64_t N = 2, C = 3, F = 4, W = 9, P = (H - 1) / sh + 1, Q = (W - 1) / sw + 1;
          std::map<std::string, std::int64_t> ext{{"n", N}, {"c", C}, {"f", F}, {"h", H}, {"w", W}, {"p", P}, {"q", Q}};
          std::map<std::string, affine> xi{{"n", idx("n")}, {"c", idx("c")}, {"h", idx("p") * sh}, {"w", idx("q") * sw}};
          auto x = named_access("X", xl == 0 ? std::vector<std::string>{"n", "h", "w", "c"}
                                             : std::vector<std::string>{"n", "c", "h", "w"},
                                xi, ext);
          auto w = named_access("K", {"f", "c"}, {{"f", idx("f")}, {"c", idx("c")}}, ext);
          auto s = make_scope(traversal({"n", "p", "q", "f"}, ext), traversal({"c"}, ext), swap ? w * x : x * w);
          CAPTURE(to_string(*s));
          auto i = expect_match(*s, op_kind::conv2d);
          auto& a = i.conv();
          CHECK(a.n == N);
          CHECK(a.c == C);
          CHECK(a.k == F);
          CHECK(a.r * a.s == 1);
          CHECK(a.stride_h == sh);
          CHECK(a.stride_w == sw);
          CHECK(a.p == P);
          CHECK(a.q == Q);
          CHECK(a.symmetric());
          ++checked;
        }
  CHECK(checked == 24);
}

TEST_CASE("conv2d: near misses do not match") {
  auto X = f32("X", {2, 6, 6, 3}), K = f32("K", {3, 3, 4, 3});
  std::vector<iterator> out{{"n", 0, 2}, {"h", 0, 4}, {"w", 0, 4}, {"f", 0, 4}};
  std::vector<iterator> sum{{"c", 0, 3}, {"r", 0, 3}, {"s", 0, 3}};
  auto k = make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")});
  auto none = [](const scope_ptr& s) { expect_no_match(*s, op_kind::conv2d); };
  // r read by two dimensions of the input
  none(make_scope(
      out, sum,
      make_access(X, {idx("n"), idx("h") + idx("r"), idx("w") + idx("s") + idx("r"), idx("c")}) *
          k));
  // the kernel iterator reversed (a true convolution, not cuDNN's cross-correlation mode here)
  none(make_scope(
      out, sum,
      make_access(X, {idx("n"), idx("h") - idx("r") + 2, idx("w") + idx("s"), idx("c")}) * k));
  // the kernel read outside its box
  none(make_scope(out, sum,
                  make_access(X, {idx("n"), idx("h") + idx("r"), idx("w") + idx("s"), idx("c")}) *
                      make_access(K, {idx("r") + 1, idx("s"), idx("f"), idx("c")})));
  // padding on the channel dimension, which the library never pads
  none(make_scope(
      out, sum,
      make_access(X, {idx("n"), idx("h") + idx("r"), idx("w") + idx("s"), idx("c") + 1}) * k));
  // an activation around the product
  none(make_scope(out, sum,
                  make_unary(unary_fn::relu, make_access(X, {idx("n"), idx("h") + idx("r"),
                                                             idx("w") + idx("s"), idx("c")}) *
                                                 k)));
}

TEST_CASE("conv2d: grouped and depthwise convolutions as ONNX's Conv writes them, every layout") {
  // G groups of Cg channels and Mg filters: filter f reads channel ⌊f / Mg⌋·Cg + c of X (nothing
  // summed over c where Cg = 1, the filter read at c = 0); G = 1 is the plain convolution.
  struct groups_case {
    std::int64_t G, Cg, Mg;
  };
  const std::vector<groups_case> cases{{1, 3, 4}, {2, 2, 3}, {3, 2, 1}, {2, 1, 3}, {6, 1, 1}, {4, 1, 2}};
  const std::vector<std::vector<std::string>> x_layouts{{"n", "h", "w", "c"}, {"n", "c", "h", "w"}};
  const std::vector<std::vector<std::string>> w_layouts{{"f", "c", "r", "s"}, {"f", "r", "s", "c"}, {"r", "s", "f", "c"}};
  int checked = 0;
  for (auto [G, Cg, Mg] : cases)
    for (std::int64_t st : {1, 2})
      for (std::int64_t pad : {0, 1})
        for (std::size_t xl = 0; xl < x_layouts.size(); ++xl)
          for (std::size_t wl = 0; wl < w_layouts.size(); ++wl) {
            const std::int64_t N = 2, H = 6, W = 5, R = 3, S = 2, C = G * Cg, F = G * Mg;
            const std::int64_t P = (H + 2 * pad - R) / st + 1, Q = (W + 2 * pad - S) / st + 1;
            std::map<std::string, std::int64_t> ext{{"n", N}, {"c", C}, {"f", F}, {"h", H}, {"w", W},
                                                    {"r", R}, {"s", S}, {"p", P}, {"q", Q}};
            const affine channel = G == 1 ? idx("c") : Cg == 1 ? idx("f").floordiv(Mg) : idx("f").floordiv(Mg) * Cg + idx("c");
            std::map<std::string, affine> xi{{"n", idx("n")}, {"c", channel}, {"h", idx("p") * st + idx("r") - pad},
                                             {"w", idx("q") * st + idx("s") - pad}};
            std::map<std::string, affine> wi{{"f", idx("f")}, {"c", Cg == 1 && G > 1 ? affine(0) : idx("c")},
                                             {"r", idx("r")}, {"s", idx("s")}};
            auto wext = ext;
            wext["c"] = Cg;
            auto x = named_access("X", x_layouts[xl], xi, ext);
            auto w = named_access("K", w_layouts[wl], wi, wext);
            std::vector<std::string> summed{"r", "s"};
            if (Cg > 1 || G == 1) summed.push_back("c");
            auto t = ext;
            t["c"] = Cg;
            auto s = make_scope(traversal(xl == 0 ? std::vector<std::string>{"n", "p", "q", "f"}
                                                  : std::vector<std::string>{"n", "f", "p", "q"},
                                          ext),
                                traversal(summed, t), x * w);
            CAPTURE(to_string(*s));
            auto i = expect_match(*s, op_kind::conv2d);
            auto& a = i.conv();
            CHECK(a.groups == G);
            CHECK(a.c == C);
            CHECK(a.k == F);
            CHECK(a.filter_channels() == Cg);
            CHECK(a.data_format == (xl == 0 ? "nhwc" : "nchw"));
            // one channel a filter: KCRS and KRSC are the same layout, named KCRS
            CHECK(a.filter_format == (wl == 2 ? "strided" : wl == 0 || Cg == 1 ? "kcrs" : "krsc"));
            CHECK(i.flops == 2.0 * N * F * P * Q * Cg * R * S);
            ++checked;
          }
  CHECK(checked == 144);
}

TEST_CASE("conv2d: grouped near misses and the group-shared filter") {
  // 2 groups of 2 channels, 3 filters each, NCHW
  auto K = f32("K", {6, 2, 3, 3});
  std::vector<iterator> out{{"n", 0, 2}, {"f", 0, 6}, {"p", 0, 4}, {"q", 0, 4}};
  std::vector<iterator> sum{{"c", 0, 2}, {"r", 0, 3}, {"s", 0, 3}};
  auto k = make_access(K, {idx("f"), idx("c"), idx("r"), idx("s")});
  auto x_at = [](const tensor& X, affine channel) {
    return make_access(X, {idx("n"), std::move(channel), idx("p") + idx("r"), idx("q") + idx("s")});
  };
  // a group steps over 3 channels but its filters read 2: no library's groups
  auto X5 = f32("X", {2, 6, 6, 6});
  expect_no_match(*make_scope(out, sum, x_at(X5, idx("f").floordiv(3) * 3 + idx("c")) * k), op_kind::conv2d);
  // the group taken from f's remainder (filters interleaved across groups): no stride gives it
  auto X4 = f32("X", {2, 4, 6, 6});
  expect_no_match(*make_scope(out, sum, x_at(X4, idx("f").mod(2) * 2 + idx("c")) * k), op_kind::conv2d);
  // the right form matches, in 2 groups
  auto i = expect_match(*make_scope(out, sum, x_at(X4, idx("f").floordiv(3) * 2 + idx("c")) * k), op_kind::conv2d);
  CHECK(i.conv().groups == 2);
  // one filter bank shared by both groups of one channel, K[f mod 3, 0, ...]: each group is an
  // image of its own (a convolution of batch n·2), which the reference executor must agree with
  auto shared = make_scope(out, {{"r", 0, 3}, {"s", 0, 3}},
                           x_at(f32("X", {2, 2, 6, 6}), idx("f").floordiv(3)) *
                               make_access(f32("K", {3, 1, 3, 3}), {idx("f").mod(3), 0, idx("r"), idx("s")}));
  REQUIRE(!of_kind(*shared, op_kind::conv2d).empty());
  for (auto& m : of_kind(*shared, op_kind::conv2d)) {
    INFO("instance: " << m.str());
    CHECK(semantic_error(*shared, m) < 1e-12);
    CHECK(m.conv().groups == 1);
  }
}

TEST_CASE("conv_transpose2d: layouts, stride, padding, output padding, kernel shapes") {
  const std::int64_t N = 2, I = 3, J = 2, C = 2, F = 3;
  const std::vector<std::vector<std::string>> a_layouts{{"n", "i", "j", "c"}, {"n", "c", "i", "j"}};
  const std::vector<std::vector<std::string>> k_layouts{
      {"r", "s", "f", "c"}, {"c", "f", "r", "s"}, {"f", "r", "s", "c"}};
  const std::vector<std::vector<std::string>> o_orders{{"n", "h", "w", "f"}, {"n", "f", "h", "w"}};
  int checked = 0;
  for (auto [R, S] : {std::pair<std::int64_t, std::int64_t>{4, 4}, {3, 2}})
    for (std::int64_t st : {1, 2, 3})
      for (std::int64_t pad : {0, 1, 2})
        for (std::int64_t opad : {0, 1}) {
          if (opad >= st) continue;
          std::int64_t Ho = (I - 1) * st - 2 * pad + R + opad,
                       Wo = (J - 1) * st - 2 * pad + S + opad;
          if (Ho < 2 || Wo < 2) continue;
          std::map<std::string, std::int64_t> ext{{"n", N}, {"i", I}, {"j", J},  {"c", C}, {"f", F},
                                                  {"r", R}, {"s", S}, {"h", Ho}, {"w", Wo}};
          std::map<std::string, affine> ai{
              {"n", idx("n")}, {"i", idx("i")}, {"j", idx("j")}, {"c", idx("c")}};
          std::map<std::string, affine> ki{{"r", idx("h") - idx("i") * st + pad},
                                           {"s", idx("w") - idx("j") * st + pad},
                                           {"f", idx("f")},
                                           {"c", idx("c")}};
          for (std::size_t al = 0; al < a_layouts.size(); ++al)
            for (std::size_t kl = 0; kl < k_layouts.size(); ++kl)
              for (std::size_t ol = 0; ol < o_orders.size(); ++ol) {
                auto a = named_access("A", a_layouts[al], ai, ext);
                auto k = named_access("K", k_layouts[kl], ki, ext);
                auto s = make_scope(traversal(o_orders[ol], ext), traversal({"i", "j", "c"}, ext),
                                    a * k);
                auto m = expect_match(*s, op_kind::conv_transpose2d);
                auto& g = m.conv();
                CHECK(g.stride_h == st);
                CHECK(g.pad_h == pad);
                CHECK(g.symmetric());
                CHECK(g.h == Ho);
                CHECK(g.p == I);
                CHECK(g.c == F);
                CHECK(g.k == C);
                if (al == ol) CHECK(g.data_format == (al == 0 ? "nhwc" : "nchw"));
                CHECK(g.filter_format == (kl == 1 ? "kcrs" : "strided"));
                auto r = repack_filter(m, kl == 2 ? "kcrs" : "krsc");
                CHECK(semantic_error(*s, r.op) < 1e-12);
                ++checked;
              }
        }
  CHECK(checked > 100);
}

TEST_CASE("conv_transpose2d: InfoGAN's layer and near misses") {
  // NHWC [16, 2, 2, 448] → 256 channels, 4×4, stride 2, padding 1 (scaled down in channels).
  auto s =
      operators::conv_transpose2d_canonical({{"n", 2}, {"i", 2}, {"j", 2}, {"c", 5}, {"f", 3}});
  auto m = expect_match(*s, op_kind::conv_transpose2d);
  CHECK(m.conv().h == 4);
  CHECK(m.conv().stride_w == 2);
  auto A = f32("A", {2, 3, 3, 2}), K = f32("K", {4, 4, 3, 2});
  std::vector<iterator> out{{"n", 0, 2}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 3}};
  std::vector<iterator> sum{{"i", 0, 3}, {"j", 0, 3}, {"c", 0, 2}};
  auto a = make_access(A, {idx("n"), idx("i"), idx("j"), idx("c")});
  auto none = [](const scope_ptr& e) { expect_no_match(*e, op_kind::conv_transpose2d); };
  // the output iterator scaled (h appears with coefficient 2)
  none(make_scope(out, sum,
                  a * make_access(K, {idx("h") * 2 - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1,
                                      idx("f"), idx("c")})));
  // negative padding (the output would start inside the library's result)
  none(make_scope(out, sum,
                  a * make_access(K, {idx("h") - idx("i") * 2 - 1, idx("w") - idx("j") * 2 + 1,
                                      idx("f"), idx("c")})));
  // the input read with padding
  none(make_scope(out, sum,
                  make_access(A, {idx("n"), idx("i") + 1, idx("j"), idx("c")}) *
                      make_access(K, {idx("h") - idx("i") * 2 + 1, idx("w") - idx("j") * 2 + 1,
                                      idx("f"), idx("c")})));
}

}  // namespace conv_test
