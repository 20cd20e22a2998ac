// Identical subprograms searched once: their search_key, one search's result renamed for another
// subprogram against the interpreter, and programs of repeated blocks whose plan and header are
// those of searching every block.
#include "rediscover_support.hpp"

#include "ein/codegen/backend.hpp"
#include "ein/codegen/header.hpp"
#include "ein/derive/all.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace identical_test {

using namespace search_test;

namespace {

// Conv k×k (NHWC, "same" padding) of `x` with weight `filter` [k, k, f, c].
scope_ptr conv_of(const tensor& x, const std::string& filter, std::int64_t f, std::int64_t k) {
  std::int64_t hw = x.shape[1], c = x.shape[3], pad = k / 2;
  return make_scope({{"n", 0, 1}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}}, {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(x, {idx("n"), idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                        make_access(weight(filter, {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

// h0 = relu(X); then `blocks` blocks h_b = relu(h_{b-1} ⋅ W_b): a product [m, k]·[k, k], or with
// `image` a 3×3 convolution keeping c channels over an hw × hw image. With `odd`, the last
// block's weight has other extents (k + 8 columns, or c + 4 filters): it differs from the others
// only in shapes.
program blocks(int blocks, bool image, bool odd, std::int64_t hw = 6, std::int64_t c = 8) {
  const std::int64_t m = 24, k = 32;
  std::vector<tensor> tensors{image ? input("X", {1, hw, hw, c}) : input("X", {m, k})};
  std::vector<definition> defs;
  auto relu_of = [](const scope_ptr& s) {
    std::vector<affine> at;
    for (auto& i : s->traversal) at.push_back(idx(i.name));
    return make_scope(s->traversal, {}, make_unary(unary_fn::relu, make_access(s, at)));
  };
  auto x = tensors[0];
  defs.push_back({"h0", relu_of(make_scope(image ? std::vector<iterator>{{"n", 0, 1}, {"h", 0, hw}, {"w", 0, hw}, {"c", 0, c}}
                                                  : std::vector<iterator>{{"i", 0, m}, {"j", 0, k}},
                                            {}, make_access(x, image ? std::vector<affine>{idx("n"), idx("h"), idx("w"), idx("c")}
                                                                     : std::vector<affine>{idx("i"), idx("j")}))),
                  dtype::f32});
  auto current = definition_tensor("h0", x.shape);
  for (int b = 1; b <= blocks; ++b) {
    bool wide = odd && b == blocks;
    auto w = "W" + std::to_string(b);
    scope_ptr layer;
    if (image) {
      layer = conv_of(current, w, wide ? c + 4 : c, 3);
      tensors.push_back(weight(w, {3, 3, wide ? c + 4 : c, c}));
    } else {
      std::int64_t n = wide ? k + 8 : k;
      tensors.push_back(weight(w, {k, n}));
      layer = make_scope({{"i", 0, m}, {"j", 0, n}}, {{"q", 0, k}},
                         make_access(current, {idx("i"), idx("q")}) * make_access(tensors.back(), {idx("q"), idx("j")}));
    }
    auto name = "h" + std::to_string(b);
    defs.push_back({name, relu_of(layer), dtype::f32});
    current = definition_tensor(name, layer->shape());
  }
  return {"blocks", tensors, defs, {defs.back().name}};
}

// `r` with every subprogram that shares a search searched on its own instead.
search::optimized_program searched_each(search::optimized_program r, const cost::model& model,
                                        const ein::plan::capabilities& caps) {
  for (auto& s : r.subprograms)
    if (s.shares) {
      s.result = search::optimize(s.source, derive::intra_rules(), model);
      s.shares.reset();
    }
  return search::for_backend(std::move(r), model, caps);
}

// The header of `r` as the host backend writes it (a plan searched for cuda is written so too).
std::string header_of(const search::optimized_program& r) {
  codegen::options o;
  o.name = "blocks";
  o.model_header = "model.hpp";
  o.object = "model::net";
  return codegen::emit_header(search::make_plan(r, codegen::capabilities_of(codegen::backend::host, true, false)), o);
}

const ein::plan::capabilities gemm_only{{ein::plan::blas}};
const auto cuda_build = codegen::capabilities_of(codegen::backend::cuda, false, true);

// `s` with every tensor it reads changed by `change` (a tensor to modify in place).
template <class F>
scope_ptr with_tensors(const scope_ptr& s, F change) {
  return derive::map_accesses_deep(s, [&](const ir::access& x) -> expr {
    auto t = std::get<tensor>(x.source);
    change(t);
    return make_access(t, x.index);
  });
}

}  // namespace

TEST_CASE("search_key: the same for other tensor names, another for another shape, role or type") {
  auto a = conv(6, 8, 8, 3, 1, "K");
  auto renamed = with_tensors(a, [](tensor& t) { t.name = t.name == "A" ? "B" : "V"; });
  auto ka = search::key_of(a, dtype::f32);
  auto kr = search::key_of(renamed, dtype::f32);
  CHECK(ka.key == kr.key);
  REQUIRE(ka.reads.size() == 2);
  CHECK(ka.reads[0].name == "A");
  CHECK(ka.reads[1].name == "K");
  CHECK(kr.reads[0].name == "B");
  CHECK(kr.reads[1].name == "V");
  CHECK(ka.key != search::key_of(conv(6, 8, 12, 3, 1, "K"), dtype::f32).key);  // other filters
  CHECK(ka.key != search::key_of(a, dtype::f64).key);
  auto as_input = with_tensors(a, [](tensor& t) { t.role = tensor_role::input; });
  CHECK(ka.key != search::key_of(as_input, dtype::f32).key);
}

TEST_CASE("a search's result renamed for another subprogram computes that subprogram") {
  // Sizes where Matmul + OffsetReduce wins, so the plans have library operands to rename.
  for (std::int64_t hw : {5, 7}) {
    CAPTURE(hw);
    auto a = conv(hw, 16, 16, 3, 1, "K");
    auto b = with_tensors(a, [](tensor& t) { t.name += "_other"; });
    auto r = search::optimize(a, derive::intra_rules(), slow_loops());
    auto moved = search::renamed_result(r, search::key_of(a, dtype::f32).reads, search::key_of(b, dtype::f32).reads);
    REQUIRE(moved.candidates.size() == r.candidates.size());
    CHECK(!moved.best.library_kinds().empty());
    CHECK(moved.best.str().find("K_other") != std::string::npos);
    for (auto& c : moved.candidates) {
      CAPTURE(c.target);
      CHECK(plan_equals_source(c.p, b));
      for (auto& k : c.p.kernels) {
        CHECK(k.what().find("K[") == std::string::npos);
        if (k.op)
          for (auto& o : k.op->inputs) {
            bool tensor_read = o.source_name() != "<scope>";
            CHECK((o.source_name().find("_other") != std::string::npos) == tensor_read);
          }
      }
    }
    CHECK_THROWS_AS(search::renamed_result(r, {}, search::key_of(b, dtype::f32).reads), internal_error);
  }
}

TEST_CASE("repeated blocks are searched once each and give the plan and header of searching each") {
  struct build {
    bool image;
    const cost::model* model;
    ein::plan::capabilities caps;
    std::int64_t hw, c;
    bool packs;  // the chosen plans read their filters packed
  };
  // At 56×56×32 the cuda build packs the filters, read [r, s, f, c], for cuDNN (a weight
  // transform; at 28×28×32 it does not): a shared search's plans, renamed, must still be packed,
  // as they are where each block is searched, which asks the renamed plans to keep their kernels'
  // scopes as nodes of their expressions. Two blocks only there: the interpreter takes seconds.
  for (auto& [image, model, caps, hw, c, packs] :
       {build{false, &slow_loops(), gemm_only, 0, 0, false}, build{true, &h100(), cuda_build, 56, 32, true},
        build{true, &slow_loops(), gemm_only, 6, 8, false}})
    for (int n : {2, 3})
      for (bool odd : {false, true}) {
        if (packs && (n != 2 || odd)) continue;
        CAPTURE(image);
        CAPTURE(n);
        CAPTURE(odd);
        auto src = image ? blocks(n, true, odd, hw, c) : blocks(n, false, odd);
        auto r = search::optimize_program(src, derive::intra_rules(), *model, {}, {}, caps);
        // Every block's summation is searched; the odd last block is a search of its own.
        CHECK(r.searched() == static_cast<std::size_t>(n));
        CHECK(r.distinct() == (odd ? 2u : 1u));
        CHECK(r.summary().find(std::to_string(r.distinct()) + " distinct") != std::string::npos);
        CHECK((r.report().find("same search, other tensors") != std::string::npos) == (r.distinct() < r.searched()));
        auto each = searched_each(r, *model, caps);
        CHECK(each.distinct() == each.searched());
        CHECK(to_string(r.program) == to_string(each.program));
        CHECK(header_of(r) == header_of(each));
        for (auto& s : r.subprograms) {
          CAPTURE(s.name);
          auto& steps = s.result.candidates[s.result.chosen].steps;
          CHECK(std::any_of(steps.begin(), steps.end(), [](const derive::step& x) { return x.rule == "pack_weight_operands"; }) ==
                (packs && s.searched));
        }
        if (packs)
          check_same_outputs(src, r.program, {1});
        else
          check_same_outputs(src, r.program);
      }
}

}  // namespace identical_test
