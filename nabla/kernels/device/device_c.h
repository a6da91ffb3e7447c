// "device C": the dialect in which nabla's hand-written device kernels
// (index generation, gather/scatter, softmax, pooling, im2col, scans, sorts,
// Philox) are written once, for every accelerator backend. It is C99 with a
// few macros that each backend's prelude defines: the OpenCL backend renders
// them as OpenCL C (kernels/opencl/launch.cpp), the CUDA backend as CUDA C++
// (kernels/cuda/source.cpp, compiled by NVRTC).
//
//   NB_KERNEL          marks an entry point:      __kernel void / extern "C" __global__ void
//                      (its name unmangled: the host finds it by name)
//   NB_GLOBAL          a pointer to device memory: __global / (nothing)
//   NB_INDEX           this work item's index in a 1-D launch, as a long
//   NB_FN              a helper function:         inline / __device__ inline
//   NB_LOCAL           work-group shared memory:  __local / __shared__ (only for
//                      fixed-size arrays declared in a kernel: CUDA has no
//                      shared-memory pointer argument like OpenCL's __local one)
//   NB_LOCAL_ID, NB_GROUP_ID, NB_LOCAL_SIZE       the work item in its group (long)
//   NB_BARRIER         a work-group barrier over shared memory
//   NB_NO_CONTRACT     (a line of its own) no a * b + c fused into an FMA in this
//                      program: `#pragma OPENCL FP_CONTRACT OFF` / nothing (NVRTC
//                      compiles every CUDA program with --fmad=false)
//   long, ulong, uint, uchar   64-, 64-, 32- and 8-bit integers (CUDA typedefs them)
//   NB_INF, NB_NAN     infinity and NaN as float constants (cast to T: no double
//                      needed on a device without float64)
//   and every NB_* math primitive (NB_EXP, NB_LOG, NB_SQRT, NB_POW, NB_FMA,
//   NB_ISNAN, NB_FLOOR, ...: kMathPrelude in kernels/opencl/launch.cpp and
//   kernels/cuda/source.cpp), for float and double arguments (an integer
//   argument is an error on CUDA); NB_ISNAN/ISINF/ISFINITE give an int.
//
// Bodies are C that is also C++ (CUDA): no OpenCL vector types or builtins
// (get_global_id, as_float, convert_*, select, atomics), no C-only syntax;
// constants such as NAN and INFINITY only as NB_NAN and NB_INF.
//
// A kernel's element types arrive as typedefs made by the caller (T for the
// data, A for an accumulator, ...), so one source serves every dtype. Offsets
// into a buffer travel as `long` arguments beside its pointer, never added to
// a handle on the host.
#pragma once
