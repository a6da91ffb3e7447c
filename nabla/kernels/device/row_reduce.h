// Reductions and scans along one dim in device C, by the loops of
// kernels/cpu/reduce.cpp; one work item per line of a dense input seen as
// [outer, n, inner] (device C can't hold a line in registers, and the CPU
// walks lines serially too, so results are the CPU's):
//
//   nb_arg_reduce(values, indices, x, lines, n, inner, is_max)   T: data.
//       The first extremum wins ties; a NaN wins (the first NaN), as in PyTorch.
//   nb_scan(out, x, lines, n, inner, is_prod)   T: out, S: x (converted first:
//       integers and bool scan in int64)
//   nb_var(out, x, outer, rows, inner, count, denom)   T: data, A: accumulator.
//       x seen as [outer, rows, inner], output r reducing over outer and inner
//       (batch norm's [N, C, H*W] needs no copy): the mean, then the sum of
//       squared deviations over denom = max(0, n - correction).
// The caller defines NB_T_IS_FLOAT (1 when T is a floating type) before the
// source: NaN's test is NB_ISNAN for floats and 0 for integers and bool.
#pragma once

namespace nabla::device_c {

const char* row_reduce_source();

}  // namespace nabla::device_c
