// A stable sort of many rows in device C: runs of 16 insertion-sorted by one
// work item each, then bottom-up merge passes, one launch per pass
// (ceil(log2(n / 16)) passes for rows of n), one work item per element.
// Each element finds its place in the merged run by a binary search in the
// other run: O(n log^2 n) work per row, every pass fully parallel. Stability
// comes from the merge (ties keep their run's order, and the left run goes
// first), so ties stay in input order, as the CPU's sort (kernels/cpu/sort.cpp)
// breaks them by position. NaN sorts after every number (ascending) or
// before it (descending), as on the CPU and in PyTorch.
//
// Rows live in scratch buffers [rows, n] of values (T) and int64 positions:
//   nb_sort_load(v, i, x, rows, n, inner)       x seen as [outer, n, inner]
//   nb_sort_runs(v, i, rows, n, width, mode)   insertion-sorts runs of width
//       in place, one work item per run (the first passes in one launch)
//   nb_sort_merge(dst_v, dst_i, src_v, src_i, rows, n, width, mode)
//       mode 0: ascending values, 1: descending values, 2: ascending positions
//   nb_sort_store(values, indices, v, i, rows, n, k, inner)
//       the first k of each row, to outputs seen as [outer, k, inner]
//   nb_topk_select(values, indices, x, lines, n, k, inner, mode, sorted)
//       topk for small k without sorting: one work item per line picks the
//       next element in order k times (O(k n) per line)
// The caller defines NB_T_IS_FLOAT (1 when T is a floating type) before the
// source: NaN's test is NB_ISNAN for floats and 0 for integers and bool.
#pragma once

namespace nabla::device_c {

const char* sort_source();

}  // namespace nabla::device_c
