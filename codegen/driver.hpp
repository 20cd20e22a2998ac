// The stage-1 driver of ein_generate: reifies a program object, chooses its plan, and writes
// the generated header and the JSON report; driver.cpp.in instantiates it for one model.
#pragma once

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

}  // namespace detail

/// `driver --name N --backend host|cuda --header H --report R [--source S]`: writes header H,
/// report R and for the cuda backend the CUDA source S, for `object` (written `object_name` in
/// C++, declared in `model_header`), and prints the plan.
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
  std::string header, report_path, source;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--name") o.name = value;
    else if (flag == "--header") header = value;
    else if (flag == "--report") report_path = value;
    else if (flag == "--source") source = value;
    else if (flag == "--backend" && (value == "host" || value == "cuda"))
      o.target = value == "host" ? backend::host : backend::cuda;
    else {
      std::fprintf(stderr, "ein_generate driver: unexpected argument %s %s\n", flag.c_str(), value.c_str());
      return 2;
    }
  }
  if (o.name.empty() || header.empty() || report_path.empty() || argc % 2 == 0 ||
      (o.target == backend::cuda) == source.empty()) {
    std::fprintf(stderr, "usage: %s --name N --backend host|cuda --header H --report R [--source S]\n"
                 "(--source, the CUDA source, with the cuda backend only)\n", argv[0]);
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
