// The stage-1 driver of ein_generate: reifies a program object, searches for its plan (or takes
// it as written), and writes the generated header and the JSON report; driver.cpp.in
// instantiates it for one model.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include "ein/ein_search.hpp"

namespace ein::codegen {

namespace detail {

// Writes `path` every run (the content is deterministic; a fresh time stamp tells the build
// that the generation step is done).
inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw user_error("ein_generate: cannot write " + path);
}

// The file name of `path` (what the plan names its profile by: no build paths in headers).
inline std::string file_name(const std::string& path) {
  auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Searches `p` under the roofline model of the profile at `profile_path` (progress on stderr
// for searches over a second), records how in `o`, prints the search report (which names the
// cost model first), and returns the optimized program.
inline ir::program search_plan(const ir::program& p, const std::string& profile_path, options& o) {
  cost::roofline model(cost::load_profile(profile_path));
  auto progress = [&](const search::statistics& s) {
    std::fprintf(stderr, "ein_generate(%s): searching, %llu states, depth %d, %.1f s\n", o.object.c_str(),
                 static_cast<unsigned long long>(s.states), s.depth, s.seconds);
  };
  // Library kernels the backend does not call (a CPU BLAS has no convolutions) are priced as
  // the eOperators they become.
  auto runs = [&](const search::kernel& k) { return runs_as_library_call(*k.op, o); };
  auto r = search::optimize_program(p, derive::intra_rules(), model, {}, progress, runs);
  if (r.seconds >= 1)
    std::fprintf(stderr, "ein_generate(%s): search done in %.1f s: %s\n", o.object.c_str(), r.seconds,
                 r.summary().c_str());
  o.search = "optimize_program, roofline " + model.profile().name + " (" + file_name(profile_path) +
             "); " + r.summary();
  o.statistics = search_summary{r.states(), r.pruned(), r.depth(), r.seconds, search::name(r.reason()),
                                r.model, r.report()};
  std::printf("%s", r.report().c_str());
  return std::move(r.program);
}

}  // namespace detail

/// `driver --name N --backend host|cuda --header H --report R [--source S] [--search on|off]
/// [--profile P]`: writes header H, report R and for the cuda backend the CUDA source S, for
/// `object` (written `object_name` in C++, declared in `model_header`), and prints the plan.
/// With `--search on` (the default) the plan is the one optimize_program finds under the
/// roofline model of device profile P (a JSON file of cost/profiles/, required then); with
/// `--search off` it is the program as written.
/// Compute-bound GEMM definitions become cuBLAS calls (cuda) or, where the driver is built with
/// EIN_HAVE_CBLAS (ein_generate found a CBLAS and links it into host consumers), CBLAS calls.
/// Compute-bound convolutions become cuDNN calls (cuda) where it is built with EIN_HAVE_CUDNN
/// (ein_generate found cuDNN and links it into cuda consumers).
/// Returns the process exit status: 0, 1 on a user error, 2 on bad arguments.
template <class Program>
int driver_main(const Program& object, const char* object_name, const char* model_header,
                int argc, char** argv) {
  options o;
  o.object = object_name;
  o.model_header = model_header;
  std::string header, report_path, source, profile;
  bool search = true, bad = argc % 2 == 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--name") o.name = value;
    else if (flag == "--header") header = value;
    else if (flag == "--report") report_path = value;
    else if (flag == "--source") source = value;
    else if (flag == "--profile") profile = value;
    else if (flag == "--search" && (value == "on" || value == "off")) search = value == "on";
    else if (flag == "--backend" && (value == "host" || value == "cuda"))
      o.target = value == "host" ? backend::host : backend::cuda;
    else {
      std::fprintf(stderr, "ein_generate driver: unexpected argument %s %s\n", flag.c_str(), value.c_str());
      return 2;
    }
  }
  if (bad || o.name.empty() || header.empty() || report_path.empty() ||
      (o.target == backend::cuda) == source.empty() || (search && profile.empty())) {
    std::fprintf(stderr, "usage: %s --name N --backend host|cuda --header H --report R [--source S]\n"
                 "       [--search on|off] [--profile P]\n"
                 "(--source, the CUDA source, with the cuda backend only; --profile, a device\n"
                 "profile JSON file, with --search on, the default)\n", argv[0]);
    return 2;
  }
#if defined(EIN_HAVE_CBLAS)
  o.library_calls = true;
#else
  o.library_calls = o.target == backend::cuda;
#endif
#if defined(EIN_HAVE_CUDNN)
  o.cudnn_calls = o.target == backend::cuda;
#endif
  try {
    o.key = ein::program_key(object);
    ir::program p = ein::reify(object, o.name);
    if (search) p = detail::search_plan(p, profile, o);
    detail::write_file(header, emit_header(p, o));
    if (o.target == backend::cuda) detail::write_file(source, emit_cuda_source(p, o));
    detail::write_file(report_path, report(p, o).dump(2) + "\n");
    std::printf("%s", describe(p, o).c_str());
    return 0;
  } catch (const user_error& e) {
    std::fprintf(stderr, "ein_generate(%s): %s\n", o.object.c_str(), e.what());
    return 1;
  }
}

}  // namespace ein::codegen
