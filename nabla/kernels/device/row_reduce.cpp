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

// nb_var for long rows (a batch norm's [N, C, H * W] per channel): one
// work-group of NB_VAR_GROUP items per output r, each item striding over
// the (outer, inner) elements, the partial sums combined in a tree; the mean
// reaches every item through shared memory.
#define NB_VAR_GROUP 256
NB_KERNEL nb_var_group(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* x, long x_off, long outer, long rows,
                       long inner, T count, T denom) {
  NB_LOCAL A part[NB_VAR_GROUP];
  const long r = NB_GROUP_ID, lid = NB_LOCAL_ID, n = outer * inner;
  NB_GLOBAL const T* base = x + x_off + r * inner;
  A acc = 0;
  for (long j = lid; j < n; j += NB_VAR_GROUP) acc += (A)base[(j / inner) * rows * inner + j % inner];
  part[lid] = acc;
  NB_BARRIER;
  for (long width = NB_VAR_GROUP / 2; width > 0; width /= 2) {
    if (lid < width) part[lid] += part[lid + width];
    NB_BARRIER;
  }
  const T mean = (T)part[0] / count;
  NB_BARRIER;  // every item has read part[0] before it is overwritten
  acc = 0;
  for (long j = lid; j < n; j += NB_VAR_GROUP) {
    const T d = base[(j / inner) * rows * inner + j % inner] - mean;
    acc += (A)(d * d);
  }
  part[lid] = acc;
  NB_BARRIER;
  for (long width = NB_VAR_GROUP / 2; width > 0; width /= 2) {
    if (lid < width) part[lid] += part[lid + width];
    NB_BARRIER;
  }
  if (lid == 0) out[out_off + r] = (T)part[0] / denom;
}
)DC";

}  // namespace

const char* row_reduce_source() { return kRowReduce; }

}  // namespace nabla::device_c
