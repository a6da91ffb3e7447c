#include "nabla/kernels/device/sort.h"

namespace nabla::device_c {
namespace {

constexpr const char* kSort = R"DC(
#if NB_T_IS_FLOAT
#define NB_T_ISNAN(x) NB_ISNAN(x)
#else
#define NB_T_ISNAN(x) 0
#endif
NB_KERNEL nb_sort_load(NB_GLOBAL T* v, long v_off, NB_GLOBAL long* idx, long i_off, NB_GLOBAL const T* x, long x_off,
                       long rows, long n, long inner) {
  const long g = NB_INDEX;
  if (g >= rows * n) return;
  const long row = g / n, p = g % n;
  v[v_off + g] = x[x_off + (row / inner) * n * inner + p * inner + row % inner];
  idx[i_off + g] = p;
}

// Whether (a, ia) goes strictly before (b, ib).
NB_FN int nb_sort_before(T a, long ia, T b, long ib, int mode) {
  if (mode == 2) return ia < ib;
  const int an = NB_T_ISNAN(a), bn = NB_T_ISNAN(b);
  if (an != bn) return mode == 1 ? an : bn;
  if (an) return 0;
  return mode == 1 ? a > b : a < b;
}

// Sorts runs of `width` elements of every row in place, one work item per
// run, by a stable insertion sort: the merge passes then start at `width`.
NB_KERNEL nb_sort_runs(NB_GLOBAL T* v, long v_off, NB_GLOBAL long* idx, long i_off, long rows, long n, long width,
                       int mode) {
  const long g = NB_INDEX;
  const long runs = (n + width - 1) / width;
  if (g >= rows * runs) return;
  const long row = g / runs, start = (g % runs) * width;
  const long end = start + width < n ? start + width : n;
  NB_GLOBAL T* rv = v + v_off + row * n;
  NB_GLOBAL long* ri = idx + i_off + row * n;
  for (long p = start + 1; p < end; ++p) {
    const T me = rv[p];
    const long my_i = ri[p];
    long q = p;
    for (; q > start && nb_sort_before(me, my_i, rv[q - 1], ri[q - 1], mode); --q) {
      rv[q] = rv[q - 1];
      ri[q] = ri[q - 1];
    }
    rv[q] = me;
    ri[q] = my_i;
  }
}

// Merges the sorted runs [s, s + width) and [s + width, s + 2 width) of every
// row: an element's place is its position in its own run plus the number of
// elements of the other run that go before it (strictly before, for the left
// run; before or tied, for the right run: left wins ties).
NB_KERNEL nb_sort_merge(NB_GLOBAL T* dst_v, long dv_off, NB_GLOBAL long* dst_i, long di_off, NB_GLOBAL const T* src_v,
                        long sv_off, NB_GLOBAL const long* src_i, long si_off, long rows, long n, long width,
                        int mode) {
  const long g = NB_INDEX;
  if (g >= rows * n) return;
  const long row = g / n, p = g % n;
  NB_GLOBAL const T* sv = src_v + sv_off + row * n;
  NB_GLOBAL const long* si = src_i + si_off + row * n;
  const long start = p / (2 * width) * (2 * width);
  const long mid = start + width < n ? start + width : n;
  const long end = start + 2 * width < n ? start + 2 * width : n;
  const T me = sv[p];
  const long my_i = si[p];
  const int left = p < mid;
  long lo = left ? mid : start, hi = left ? end : mid;
  const long first = lo;
  while (lo < hi) {
    const long m = lo + (hi - lo) / 2;
    const int goes_before = left ? nb_sort_before(sv[m], si[m], me, my_i, mode)
                                  : !nb_sort_before(me, my_i, sv[m], si[m], mode);
    if (goes_before) lo = m + 1;
    else hi = m;
  }
  const long place = start + (left ? p - start : p - mid) + (lo - first);
  dst_v[dv_off + row * n + place] = me;
  dst_i[di_off + row * n + place] = my_i;
}

NB_KERNEL nb_sort_store(NB_GLOBAL T* values, long val_off, NB_GLOBAL long* indices, long ind_off,
                        NB_GLOBAL const T* v, long v_off, NB_GLOBAL const long* idx, long i_off, long rows, long n,
                        long k, long inner) {
  const long g = NB_INDEX;
  if (g >= rows * k) return;
  const long row = g / k, q = g % k;
  const long at = (row / inner) * k * inner + q * inner + row % inner;
  values[val_off + at] = v[v_off + row * n + q];
  indices[ind_off + at] = idx[i_off + row * n + q];
}

// before(), with ties broken by position: a strict total order.
NB_FN int nb_sort_total_before(T a, long ia, T b, long ib, int mode) {
  if (nb_sort_before(a, ia, b, ib, mode)) return 1;
  return !nb_sort_before(b, ib, a, ia, mode) && ia < ib;
}

// topk for small k: one work item per line picks, k times, the first element
// (in the total order) after the one it picked last: O(k n) per line, no
// scratch. Unsorted: the k picked are then put in input order.
NB_KERNEL nb_topk_select(NB_GLOBAL T* values, long val_off, NB_GLOBAL long* indices, long ind_off,
                         NB_GLOBAL const T* x, long x_off, long lines, long n, long k, long inner, int mode,
                         int sorted) {
  const long g = NB_INDEX;
  if (g >= lines) return;
  NB_GLOBAL const T* row = x + x_off + (g / inner) * n * inner + g % inner;
  NB_GLOBAL T* vals = values + val_off + (g / inner) * k * inner + g % inner;
  NB_GLOBAL long* idx = indices + ind_off + (g / inner) * k * inner + g % inner;
  T prev = row[0];
  long prev_i = -1;
  for (long q = 0; q < k; ++q) {
    long best = -1;
    T best_v = row[0];
    for (long i = 0; i < n; ++i) {
      const T v = row[i * inner];
      if (prev_i >= 0 && !nb_sort_total_before(prev, prev_i, v, i, mode)) continue;
      if (best < 0 || nb_sort_total_before(v, i, best_v, best, mode)) {
        best = i;
        best_v = v;
      }
    }
    vals[q * inner] = best_v;
    idx[q * inner] = best;
    prev = best_v;
    prev_i = best;
  }
  if (sorted) return;
  for (long q = 1; q < k; ++q) {  // insertion sort by position
    const T v = vals[q * inner];
    const long i = idx[q * inner];
    long p = q;
    for (; p > 0 && idx[(p - 1) * inner] > i; --p) {
      vals[p * inner] = vals[(p - 1) * inner];
      idx[p * inner] = idx[(p - 1) * inner];
    }
    vals[p * inner] = v;
    idx[p * inner] = i;
  }
}
)DC";

}  // namespace

const char* sort_source() { return kSort; }

}  // namespace nabla::device_c
