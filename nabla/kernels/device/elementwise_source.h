// The generated kernels of the expression tables (elementwise_exprs.h)
// rendered as device C (device_c.h), once for every backend: each backend
// adds its prelude and the typedef of the compute type (T for elementwise, A
// for a reduction's accumulator) and compiles the result (OpenCL:
// kernels/opencl/elementwise.cpp and reduce.cpp; CUDA: kernels/cuda/source.h).
//
// nb_elementwise: one work item per output element; its index is unravelled
// over the merged sizes (innermost first) into each operand's strided
// position. Arguments, in order:
//   out, out_off, in0, in0_off, ... (the inputs from e.first_input on),
//   a0, a1 (e.num_attrs values of type T), n (the output's elements),
//   size0 .. size<rank-1>, then per operand (out first) st<k>_0 .. st<k>_<rank-1>.
// nb_reduce: one work item per output element (the output contiguous):
//   out, out_off, in, in_off, n_out, n_red, then ksize<d>, kst<d> per kept
//   dim, then rsize<d>, rst<d> per reduced dim.
// nb_reduce_group: the same arguments, one work-group per output element
//   (long reductions: on a GPU one item per output leaves most of it idle).
#pragma once
#include <cstddef>
#include <span>
#include <string>

#include "nabla/kernels/device/elementwise_exprs.h"

namespace nabla::device_c {

// The device C name of the type holding a dtype's elements (bool as a 0/1
// uchar): uchar, int, long, float, double; null for float16 and bfloat16.
const char* type_name(DType t);

// The body of nb_elementwise for row `e` with compute type T = `compute`,
// operand dtypes `operands` (the output, then each input read) and `rank`
// merged dims. Needs the typedef T. The expression is e.float_expr for a
// floating T, else e.int_expr (which must not be null).
std::string elementwise_kernel_body(const ElementwiseExpr& e, DType compute, std::span<const DType> operands,
                                    std::size_t rank);

// The body of nb_reduce for row `e`: input dtype `in`, output dtype `out`,
// `keep_rank` kept and `red_rank` reduced dims (merged). Needs the typedef A
// (the accumulator: floating or long); `acc_floating` says which combine
// expression applies.
std::string reduce_kernel_body(const ReduceExpr& e, DType in, bool acc_floating, DType out, std::size_t keep_rank,
                               std::size_t red_rank);

// The body of nb_reduce_group, nb_reduce's form for long reductions: the
// same arguments, launched with one work-group of `group` items (a power of
// two) per output element; needs n_red >= group (for max/min's first element).
std::string reduce_group_kernel_body(const ReduceExpr& e, DType in, bool acc_floating, DType out, std::size_t keep_rank,
                                     std::size_t red_rank, std::size_t group);

}  // namespace nabla::device_c
