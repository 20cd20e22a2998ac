// What every generated plan header includes first: it is host C++, and under nvcc it stops with
// how to call the plan from CUDA code.
#pragma once

// nvcc's host pass (cudafe++) re-spells every type a .cu file names, and it cannot spell a
// program's type, whose template arguments hold strings (`__T2` in what it hands the host
// compiler): the plan's specialization fails with thousands of errors. ein.hpp itself, the front
// end and the generic path compile in .cu files; the generated plan, which runs from the host
// anyway, does not.
#if defined(__CUDACC__)
#error "ein: a generated plan header (ein_generated/<name>.hpp) is host C++ that nvcc cannot compile: include it in a .cpp file whose function calls ein::run(model::net, {...}, stream) (or ein::prepare) on device pointers, and call that function from CUDA code; ein.hpp alone compiles in .cu files"
#endif
