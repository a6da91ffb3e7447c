#include "nabla/kernels/device/row_reduce.h"

namespace nabla::device_c {
namespace {

constexpr const char* kRowReduce = R"DC(
#if NB_T_IS_FLOAT
#define NB_T_ISNAN(x) NB_ISNAN(x)
#else
#define NB_T_ISNAN(x) 0
#endif
NB_KERNEL nb_arg_reduce(NB_GLOBAL T* values, long v_off, NB_GLOBAL long* indices, long i_off, NB_GLOBAL const T* x,
                        long x_off, long lines, long n, long inner, int is_max) {
  const long g = NB_INDEX;
  if (g >= lines) return;
  NB_GLOBAL const T* row = x + x_off + (g / inner) * n * inner + g % inner;
  long best = 0;
  for (long i = 1; i < n; ++i) {
    const T b = row[best * inner], v = row[i * inner];
    if (NB_T_ISNAN(b)) break;
    if (NB_T_ISNAN(v)) {
      best = i;
      break;
    }
    if (is_max ? v > b : v < b) best = i;
  }
  values[v_off + g] = row[best * inner];
  indices[i_off + g] = best;
}

NB_KERNEL nb_scan(NB_GLOBAL T* out, long out_off, NB_GLOBAL const S* x, long x_off, long lines, long n, long inner,
                  int is_prod) {
  const long g = NB_INDEX;
  if (g >= lines) return;
  const long base = (g / inner) * n * inner + g % inner;
  T acc = is_prod ? (T)1 : (T)0;
  for (long i = 0; i < n; ++i) {
    const T v = (T)x[x_off + base + i * inner];
    acc = is_prod ? acc * v : acc + v;
    out[out_off + base + i * inner] = acc;
  }
}

// Each step rounded to T, as the CPU's var: the sum (accumulated in A) stored
// as T, then divided by the count in T; the squares in T, their sum in A,
// stored as T, divided by denom in T. x is [outer, rows, inner] with output r
// reducing over (outer, inner), in that order (the CPU's order: the reduced
// dims' row-major order).
NB_KERNEL nb_var(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* x, long x_off, long outer, long rows, long inner,
                 T count, T denom) {
  const long r = NB_INDEX;
  if (r >= rows) return;
  NB_GLOBAL const T* base = x + x_off + r * inner;
  A sum = 0;
  for (long o = 0; o < outer; ++o)
    for (long i = 0; i < inner; ++i) sum += (A)base[o * rows * inner + i];
  const T mean = (T)sum / count;
  A squares = 0;
  for (long o = 0; o < outer; ++o)
    for (long i = 0; i < inner; ++i) {
      const T d = base[o * rows * inner + i] - mean;
      squares += (A)(d * d);
    }
  out[out_off + r] = (T)squares / denom;
}
)DC";

}  // namespace

const char* row_reduce_source() { return kRowReduce; }

}  // namespace nabla::device_c
