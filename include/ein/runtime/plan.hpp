// The compile-time hook between a program and the code ein_generate wrote for it.
#pragma once

#include <cstddef>
#include <string_view>
#include <type_traits>

#include "ein/runtime/bindings.hpp"

struct CUstream_st;  // CUDA's stream type, declared so that no CUDA header is needed here

namespace ein::runtime {

/// A CUDA stream (the same type as cudaStream_t); host plans ignore it.
using stream = CUstream_st*;

/// Watches the steps of a prepared plan's runs (run_prepared() with an observer; ein::profile):
/// begin(k, s) just before step k of the plan (its (k+1)-th line of `description`) runs, end(k, s)
/// just after: on the host when the step has finished, for a cuda plan when its work is queued on
/// stream `s`. A run calls them for its steps in order, those prepare() runs left out (the
/// weight transforms but those that write an output). An exception a step throws leaves end() uncalled. Without an observer a run calls nothing.
class step_observer {
 public:
  virtual void begin(std::size_t step, stream s) = 0;
  virtual void end(std::size_t step, stream s) = 0;

 protected:
  ~step_observer() = default;
};

/// Where a generated plan runs, and so which memory its bound pointers must point to; also the
/// backend stage 1 generates for (codegen::backend).
enum class backend : unsigned char { host, cuda };

/// The generated code of a program type. The primary template says "none"; a header written by
/// ein_generate specializes it for `std::remove_cvref_t<decltype(model::net)>` with:
///   static constexpr bool generated = true;
///   static constexpr ein::runtime::backend target;       // host or cuda
///   static constexpr std::string_view name;              // the generated header's name
///   static constexpr std::string_view description;       // the plan, one line per step
///   static void run(const bindings&, stream = nullptr);  // memory of `target`
///   static void run_host(const bindings&);               // host loops, host memory
/// and what ein::prepare (dispatch/prepare.hpp) runs, in the memory of `target`:
///   static constexpr std::size_t prepared_bytes;         // the storage of a prepared plan
///   static void* allocate_prepared();                    // prepared_bytes (null for 0)
///   static void free_prepared(void*) noexcept;
///   static void prepare(const bindings& weights, void* storage, stream = nullptr);
///   static void run_prepared(const void* storage, const bindings&, stream = nullptr,
///                            step_observer* = nullptr);
/// and, for a cuda plan only, what ein::captured runs (a CUDA graph of one run_prepared()):
///   static void* capture(const void* storage, const bindings&);
///   static void replay(const void* graph, stream = nullptr);
///   static void free_graph(void*) noexcept;
/// @post run() writes every output of the program; it checks the bindings first.
/// prepare() binds the weights only and runs the weight transforms into the storage;
/// run_prepared() binds inputs and outputs only and runs the other steps, reading the storage,
/// telling the observer, where one is given, when each step begins and ends.
template <class Program>
struct generated_plan {
  static constexpr bool generated = false;
};

/// True when the header generated for `Program` has been included in this translation unit.
template <class Program>
inline constexpr bool has_plan_v = generated_plan<std::remove_cvref_t<Program>>::generated;

template <class Program>
struct has_plan : std::bool_constant<has_plan_v<Program>> {};

}  // namespace ein::runtime
