// The index-driven kernels in device C (kernels/device/device_c.h): strided
// copies (cat, flip, constant pad, contiguous copies of any dtype), gather
// and its forms (index_select, take, embedding), scatter and its forms
// (scatter_value, scatter_add, index_add, embedding_backward), one_hot,
// masked_select, tril/triu, reflect/replicate pad and its gradient, and the
// range factories (arange, linspace, eye). The OpenCL host side is
// kernels/accel/indexing.cpp, rearrange.cpp and factory.cpp.
//
// Layouts travel as kernel arguments, never as program variants: a strided
// operand is up to kMaxDims sizes (shared by the operands of one launch) and
// its strides, passed as longs (see NB_SIZES and NB_STRIDES in the source).
// The programs:
//   kMoveKernels        per item size (U: uchar, ushort, uint, ulong): kernels
//                       that only move elements, so every dtype (float16
//                       included) uses the program of its width.
//   kAccumulateKernels  per arithmetic dtype (U, with NB_ADD): the scatter
//                       loop with `+` (scatter_add, index_add,
//                       embedding_backward) and pad's gradient.
//   kRangeKernels       per dtype (T, with NB_STORE): arange, linspace, eye.
#pragma once

namespace nabla::device_c {

// The most dims a strided operand has after merging (opencl/strided.h).
inline constexpr int kMaxDims = 8;

// Helpers every program below starts with: the strided-operand parameters and
// the offsets of one element in two or three operands.
extern const char* const kStridedHelpers;
// The scatter loop, written over NB_COMBINE(dst, src): the move program sets
// it to `src`, the accumulate program to NB_ADD(dst, src).
extern const char* const kScatterKernel;
extern const char* const kMoveKernels;
extern const char* const kAccumulateKernels;
extern const char* const kRangeKernels;

}  // namespace nabla::device_c
