// What each backend's generated code calls: the library capabilities of a build (the one place
// that says which library calls a host or cuda build makes), and the calls each part of its
// generated code emits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/named_plan.hpp"
#include "ein/error.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/runtime/plan.hpp"

namespace ein::codegen {

/// What a plan runs on, the generated header's `target`: `host` (loops in the header), or `cuda`
/// (the header keeps the host loops for run_host(); kernels and their launches go to a CUDA
/// source beside it).
using backend = runtime::backend;
inline const char* name(backend b) { return b == backend::host ? "host" : "cuda"; }

/// The library calls a build for `target` makes, given the libraries it links: on the host,
/// CBLAS GEMMs where it links a CBLAS (`cblas`) and oneDNN convolutions where it links oneDNN
/// (`onednn`), bfloat16 ones too where the CPU runs them (`onednn_bfloat16`:
/// runtime::onednn_runs_bfloat16), and then bfloat16 GEMMs on oneDNN's matmul; on cuda, cuBLAS GEMMs, and cuDNN convolutions where it links
/// cuDNN (`cudnn`). Compute-bound operators only (ein::plan::capabilities).
/// Example: `capabilities_of(backend::cuda, false, true).str()` is `blas+cudnn`;
/// `capabilities_of(backend::host, false, true).str()` is `none`;
/// `capabilities_of(backend::host, true, false, true).str()` is `blas+onednn`.
inline ein::plan::capabilities capabilities_of(backend target, bool cblas, bool cudnn, bool onednn = false,
                                               bool onednn_bfloat16 = false) {
  ein::plan::capabilities c;
  if (target == backend::cuda) c.libraries.push_back(ein::plan::cublas);
  else if (cblas) c.libraries.push_back(onednn && onednn_bfloat16 ? ein::plan::blas_onednn_bf16 : ein::plan::blas);
  if (target == backend::cuda && cudnn) c.libraries.push_back(ein::plan::cudnn);
  if (target == backend::host && onednn)
    c.libraries.push_back(onednn_bfloat16 ? ein::plan::onednn_bf16 : ein::plan::onednn);
  return c;
}

/// Whether `target`'s generated code emits calls of library `l`: BLAS on both (CBLAS, cuBLAS),
/// cuDNN on cuda only, oneDNN on the host only; no other library.
inline bool emits(backend target, const ein::plan::library& l) {
  return l == ein::plan::blas || (l == ein::plan::cudnn && target == backend::cuda) ||
         (l == ein::plan::onednn && target == backend::host);
}

/// The library call of each step of `plan` that `target`'s generated code makes, nothing for an
/// eOperator. `host_loops`: the host part of a cuda plan (run_host()), which runs every step as
/// its loops (its consumers link no CPU library).
/// @throws user_error when the plan calls a library `target` does not emit (a plan bound for
///         another build).
inline std::vector<std::optional<ein::plan::library_call>> emitted_calls(const named_plan& plan, backend target,
                                                                    bool host_loops = false) {
  std::vector<std::optional<ein::plan::library_call>> r(plan.steps.size());
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    auto& call = plan.steps[k].call;
    if (!call) continue;
    if (!emits(target, call->library))
      throw user_error("the plan calls " + std::string(call->library.name) + " for `" +
                       plan.buffers[plan.steps[k].target].name + "`, which the " + name(target) +
                       " backend does not emit: bind the plan for this build (codegen::capabilities_of)");
    if (!host_loops) r[k] = call;
  }
  return r;
}

}  // namespace ein::codegen
