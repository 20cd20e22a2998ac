// The input fuzzer: mutants of every kind of file ein reads, each of which must be refused with
// an ein::user_error naming the file and the field, or accepted only when it is still valid.
//
//   fuzz_inputs [--kind program|scope|profile|cache|model|onnx|all] [--mutants N] [--seed S]
//
// Kinds and their readers: `program`, IR programs (ir::from_json_text<program>, generated
// programs); `model`, the model files that a model's stage-1 program hands to the search program
// (generator/model_file.hpp); `scope`, the IR of the steps of ein's JSON reports (ir::from_json_text<scope>, as
// the report is read back); `profile`, device profiles (cost::read_profile_text, the shipped
// profiles); `cache`, the measured model's cost cache file (cost::measurement_cache, which warns
// and ignores instead of refusing); `onnx`, ONNX files (onnx::import_file, mutants of ONNX's node
// tests' models, tests/fuzz/onnx_mutants.hpp; where ein is built with ONNX), whose refusals must
// start with `ONNX file <path>:`. Mutants (tests/fuzz/mutate.hpp) remove, retype, duplicate,
// rename and renumber fields (huge, negative, NaN, infinite) and truncate or corrupt the text;
// mutants holding what JSON text cannot (NaN) are also fed as parsed documents where a reader
// takes one. An accepted input must verify, read back what it writes, and evaluate (IR), price
// kernels with finite positive times (profile), or hold only valid entries and save a file that
// loads without a warning (cache). Any other exception, or a refusal that does not name the
// file and a field (a JSON path, or a byte offset for text that is no JSON), is a failure: the
// run prints the kind, the mutant's seed, its mutations and text, and exits with status 1.
// It ends with one line per kind: `fuzz_inputs <kind>: N mutants, A accepted, R refused`.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "model_file.hpp"
#include "ein/codegen/report.hpp"
#include "ein/cost/measured.hpp"
#include "ein/cost/profile.hpp"
#include "ein/cost/roofline.hpp"
#include "support/generate.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/plan/build.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/json.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"
#include "fuzz/mutate.hpp"
#if defined(EIN_FUZZ_ONNX)
#include "ein/onnx/import.hpp"
#include "fuzz/onnx_mutants.hpp"
#endif

namespace {

using namespace ein;
using ein_fuzz::json;

// The outcome of one mutant: accepted, refused, or a failure with what went wrong.
struct outcome {
  enum { accepted, refused, failed } kind = accepted;
  std::string why;
};

outcome fails(std::string why) { return {outcome::failed, std::move(why)}; }

// A refusal must name the file and where in it: a JSON path, or the byte of a syntax error.
outcome refusal(const user_error& e, const std::string& file) {
  std::string m = e.what();
  if (m.find(file) == std::string::npos) return fails("the error does not name the file: " + m);
  if (m.find("at /") == std::string::npos && m.find("at byte") == std::string::npos &&
      m.find("not valid JSON") == std::string::npos)
    return fails("the error names no field: " + m);
  return {outcome::refused, {}};
}

// Runs `read` and classifies what it did.
template <class F>
outcome classify(const std::string& file, F read) {
  try {
    return read();
  } catch (const user_error& e) {
    return refusal(e, file);
  } catch (const std::exception& e) {
    return fails(std::string("an exception other than ein::user_error: ") + e.what());
  } catch (...) {
    return fails("an exception of no std type");
  }
}

// Whether the interpreter evaluates a mutant quickly: little work, and inputs of at most a
// million elements (a mutant may declare a valid tensor of 2^40 elements).
constexpr std::int64_t small_work = 200000;
bool small_inputs(const std::vector<ir::tensor>& tensors) {
  for (auto& t : tensors) {
    double n = 1;
    for (auto e : t.shape) n *= static_cast<double>(e);
    if (n > 1e6) return false;
  }
  return true;
}

// An accepted program must verify, write what it read, and (when small) evaluate.
outcome check_program(const ir::program& p) {
  ir::verify(p);
  if (ir::to_string(ir::from_json<ir::program>(ir::to_json(p))) != ir::to_string(p))
    return fails("the program read does not read back as itself");
  std::int64_t work = 0;
  for (auto& d : p.definitions) work += eval::work(*d.value);
  if (work <= small_work && small_inputs(p.tensors)) {
    auto out = eval::evaluate(p, eval::random_inputs(p, 7));
    for (auto& o : p.outputs)
      if (!out.count(o)) return fails("output " + o + " was not evaluated");
  }
  return {};
}

outcome check_scope(const ir::scope& s) {
  ir::verify(s);
  if (ir::to_string(ir::from_json<ir::scope>(ir::to_json(s))) != ir::to_string(s))
    return fails("the scope read does not read back as itself");
  std::map<std::string, ir::tensor> reads;
  for (auto& t : ir::tensors_read(s.body, ir::depth::nested)) reads.emplace(t.name, t);
  std::vector<ir::tensor> inputs;
  for (auto& [name, t] : reads) inputs.push_back(t);
  if (eval::work(s) <= small_work && small_inputs(inputs)) {
    eval::random_stream rng(3);
    eval::bindings env;
    for (auto& [name, t] : reads) env[name] = eval::random_dense(t.shape, rng);
    auto v = eval::evaluate(s, env);
    if (v.shape != s.shape()) return fails("the scope evaluated to another shape");
  }
  return {};
}

// An accepted profile must hold usable figures: every price finite and positive.
outcome check_profile(const cost::device_profile& p) {
  if (!(p.fp32_flops > 0 && p.tf32_flops > 0 && p.dram_bytes > 0 && p.launch_seconds >= 0 &&
        p.eoperator_bandwidth > 0 && p.eoperator_bandwidth <= 1 && p.eoperator_compute > 0 &&
        p.eoperator_compute <= 1 && p.winograd_3x3_flop_fraction > 0 && p.winograd_3x3_flop_fraction <= 1))
    return fails("accepted a profile with a figure out of range");
  cost::roofline r(p);
  for (int op = 0; op <= static_cast<int>(match::op_kind::gbmm); ++op)
    for (double flops : {0.0, 1e3, 1e9, 1e15}) {
      cost::workload w{cost::workload::engine::library, static_cast<match::op_kind>(op), flops, flops / 8, 2, 4096,
                       64, op == 3};
      for (auto engine : {cost::workload::engine::library, cost::workload::engine::eoperator}) {
        w.kind = engine;
        double t = r.seconds(w);
        if (!std::isfinite(t) || t < 0) return fails("a price is not finite and positive: " + std::to_string(t));
      }
    }
  return {};
}

struct corpus {
  std::vector<json> programs, scopes, profiles, caches, models;
};

corpus make_corpus() {
  corpus c;
  codegen::options o;
  o.name = "fuzz";
  o.object = "fuzz::net";
  o.model_header = "fuzz.hpp";
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    eval::generate_options small;
    small.max_work = 4000;
    auto p = eval::generate_program(seed, small);
    c.programs.push_back(ir::to_json(p));
    c.models.push_back({{"format", generator::model_file_format},
                        {"object", "fuzz::net" + std::to_string(seed)},
                        {"model", "models/fuzz.hpp"},
                        {"key", "0x00000000deadbeef"},
                        {"program", c.programs.back()}});
    auto report = codegen::report(ein::plan::make_plan(p, {}), o);
    for (auto& step : report["plan"]) c.scopes.push_back(json::parse(step["ir"].dump()));
  }
  for (const char* file : {"h100_sxm5.json", "a100_sxm4_40gb.json"}) {
    std::ifstream in(std::string(EIN_PROFILE_DIR) + "/" + file);
    c.profiles.push_back(json::parse(in));
  }
  cost::measurement_cache cache;
  cache.expect("NVIDIA H100 80GB HBM3", {{{"compute_capability", "9.0"}, {"driver", "12040"}, {"runtime", "12040"},
                                          {"cublas", "12.4.5"}, {"cudnn", "90100"}}});
  cache.expect("NVIDIA A100-SXM4-40GB", {{{"compute_capability", "8.0"}, {"driver", "12020"}, {"runtime", "12020"},
                                          {"cublas", "12.2.1"}, {"cudnn", ""}}});
  cache.expect("host: AMD EPYC, 2 threads", {{{"compiler", "/usr/bin/c++ -O3"}, {"instruction_sets", "avx2 fma"},
                                              {"libraries", "OpenBLAS 0.3.21; oneDNN 2.6.3"}}});
  for (int k = 0; k < 4; ++k) {
    cache.store("NVIDIA H100 80GB HBM3", "library matmul float batch=1 m=" + std::to_string(49 << k) + " n=512 k=4608",
                {1e-5 * (k + 1), 15});
    cache.store("NVIDIA A100-SXM4-40GB", "eoperator L([0," + std::to_string(k + 2) + ")) relu(A[t0])", {3e-6, 3});
    cache.store("host: AMD EPYC, 2 threads", "plan blas+onednn P" + std::to_string(k), {2e-4 * (k + 1), 11});
  }
  c.caches.push_back(json::parse(cache.dump()));
  return c;
}

struct tally {
  std::uint64_t mutants = 0, accepted = 0, refused = 0, failed = 0;
};

// Fuzzes one kind: `judge` reads a mutant (text, and document where it carries more) and
// classifies it. Failures are printed as they happen, the first 10 in full.
tally fuzz(const char* kind, const std::vector<json>& seeds, std::uint64_t count, std::uint64_t seed,
           const std::function<outcome(const ein_fuzz::mutant&)>& judge) {
  tally t;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t mutant_seed = seed * 1000003 + i;
    ein_fuzz::mutator mutate(mutant_seed);
    auto m = mutate(seeds[i % seeds.size()]);
    auto r = judge(m);
    ++t.mutants;
    if (r.kind == outcome::accepted) ++t.accepted;
    if (r.kind == outcome::refused) ++t.refused;
    if (r.kind != outcome::failed) continue;
    if (++t.failed <= 10) {
      std::printf("FAIL %s mutant %llu (seed %llu, corpus entry %llu): %s\n  mutations:", kind,
                  static_cast<unsigned long long>(i), static_cast<unsigned long long>(mutant_seed),
                  static_cast<unsigned long long>(i % seeds.size()), r.why.c_str());
      for (auto& s : m.steps) std::printf(" [%s]", s.c_str());
      std::printf("\n  text: %.600s\n", m.text.c_str());
    }
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only = "all";
  std::uint64_t count = 1000, seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--kind")
      only = value;
    else if (flag == "--mutants")
      count = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--seed")
      seed = std::strtoull(value.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "usage: fuzz_inputs [--kind program|scope|profile|cache|model|onnx|all] [--mutants N] [--seed S]\n");
      return 2;
    }
  }
  auto c = make_corpus();
  auto dir = std::filesystem::temp_directory_path() / ("ein_fuzz_inputs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string cache_file = (dir / "ein_cost_cache.json").string();

  std::map<std::string, std::function<tally()>> kinds;
  kinds["program"] = [&] {
    return fuzz("program", c.programs, count, seed, [](const ein_fuzz::mutant& m) {
      const std::string file = "fuzz/program.json";
      auto r = classify(file, [&] { return check_program(ir::from_json_text<ir::program>(m.text, file)); });
      if (r.kind != outcome::failed && m.in_memory)
        r = classify(file, [&] { return check_program(ir::from_json<ir::program>(m.document, file)); });
      return r;
    });
  };
  kinds["scope"] = [&] {
    return fuzz("scope", c.scopes, count, seed, [](const ein_fuzz::mutant& m) {
      const std::string file = "fuzz/report.json#/plan/0/ir";
      auto r = classify(file, [&] { return check_scope(ir::from_json_text<ir::scope>(m.text, file)); });
      if (r.kind != outcome::failed && m.in_memory)
        r = classify(file, [&] { return check_scope(ir::from_json<ir::scope>(m.document, file)); });
      return r;
    });
  };
  kinds["profile"] = [&] {
    return fuzz("profile", c.profiles, count, seed, [](const ein_fuzz::mutant& m) {
      const std::string file = "fuzz/profile.json";
      auto r = classify(file, [&] { return check_profile(cost::read_profile_text(m.text, file)); });
      if (r.kind != outcome::failed && m.in_memory)
        r = classify(file, [&] { return check_profile(cost::read_profile(m.document, file)); });
      return r;
    });
  };
  std::uint64_t saved = 0;
  kinds["cache"] = [&] {
    return fuzz("cache", c.caches, count, seed, [&](const ein_fuzz::mutant& m) {
      {
        std::ofstream out(cache_file, std::ios::binary | std::ios::trunc);
        out << m.text;
      }
      std::vector<std::string> warnings;
      return classify(cache_file, [&]() -> outcome {
        cost::measurement_cache cache(cache_file, [&](const std::string& w) { warnings.push_back(w); });
        if (!warnings.empty()) {
          if (warnings.size() > 1 || !cache.devices().empty()) return fails("a cache with a warning kept entries");
          auto r = refusal(user_error(warnings[0]), cache_file);
          if (r.kind == outcome::failed) return r;
          if (warnings[0].find("ignored and will be rewritten") == std::string::npos)
            return fails("the warning does not say the file is ignored: " + warnings[0]);
          return r;
        }
        auto back = json::parse(cache.dump());
        for (auto& [device, d] : back["devices"].items())
          for (auto& [key, e] : d["kernels"].items()) {
            double s = e["seconds"].get<double>();
            if (!(s > 0 && s <= 1e6) || e["runs"].get<std::int64_t>() < 1)
              return fails("accepted an entry out of range: " + e.dump());
          }
        if (++saved % 16 == 0) {  // save it, and load it again without a warning
          cache.save();
          cost::measurement_cache again(cache_file, [&](const std::string& w) { warnings.push_back(w); });
          if (!warnings.empty() || again.dump() != cache.dump())
            return fails("a saved cache does not load back as itself");
        }
        return {};
      });
    });
  };

  const std::string model_file = (dir / "model.json").string();
  kinds["model"] = [&] {
    return fuzz("model", c.models, count, seed, [&](const ein_fuzz::mutant& m) {
      {
        std::ofstream out(model_file, std::ios::binary | std::ios::trunc);
        out << m.text;
      }
      return classify(model_file, [&]() -> outcome {
        auto read = generator::read_model_file(model_file);
        if (!generator::is_qualified_name(read.object) || read.model.find('"') != std::string::npos)
          return fails("accepted a name the generated header cannot write");
        return check_program(read.program);
      });
    });
  };

#if defined(EIN_FUZZ_ONNX)
  kinds["onnx"] = [&] {
    const std::string file = (dir / "model.onnx").string();
    const auto corpus = ein_fuzz::onnx_corpus(
        EIN_ONNX_NODE_TESTS,
        {"conv", "pool", "gemm", "matmul", "reshape", "softmax", "einsum", "concat", "pad", "clip", "cast", "max", "min"},
        {EIN_ONNX_EXAMPLE});
    tally t;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t mutant_seed = seed * 1000003 + i;
      auto m = ein_fuzz::onnx_mutator(mutant_seed)(corpus[i % corpus.size()]);
      std::ofstream(file, std::ios::binary | std::ios::trunc) << m.bytes;
      auto r = classify(file, [&]() -> outcome {
        try {
          return check_program(ein::onnx::import_file(file));
        } catch (const user_error& e) {
          if (std::string(e.what()).rfind("ONNX file " + file + ": ", 0) != 0)
            return fails(std::string("the error does not start with the file: ") + e.what());
          return {outcome::refused, {}};
        }
      });
      ++t.mutants;
      if (r.kind == outcome::accepted) ++t.accepted;
      if (r.kind == outcome::refused) ++t.refused;
      if (r.kind == outcome::failed && ++t.failed <= 10) {
        std::printf("FAIL onnx mutant %llu (seed %llu): %s\n  mutations:", static_cast<unsigned long long>(i),
                    static_cast<unsigned long long>(mutant_seed), r.why.c_str());
        for (auto& step : m.steps) std::printf(" [%s]", step.c_str());
        std::printf("\n");
      }
    }
    return t;
  };
#endif

  int status = 0;
  for (auto& [kind, run] : kinds) {
    if (only != "all" && only != kind) continue;
    auto start = std::chrono::steady_clock::now();
    auto t = run();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("fuzz_inputs %s: %llu mutants, %llu accepted, %llu refused, %llu failed (%.1f s)\n", kind.c_str(),
                static_cast<unsigned long long>(t.mutants), static_cast<unsigned long long>(t.accepted),
                static_cast<unsigned long long>(t.refused), static_cast<unsigned long long>(t.failed), s);
    if (t.failed) status = 1;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return status;
}
