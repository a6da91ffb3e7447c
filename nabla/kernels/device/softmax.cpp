#include "nabla/kernels/device/softmax.h"

namespace nabla::device_c {
namespace {

// A NaN never wins the max (x > m is false), as on the CPU; it reaches every
// output of its line through the sum.
constexpr const char* kSoftmax = R"DC(
NB_KERNEL nb_softmax(NB_GLOBAL T* y, long y_off, NB_GLOBAL const T* x, long x_off, long lines, long n, long inner,
                     int log_softmax) {
  const long g = NB_INDEX;
  if (g >= lines || n == 0) return;
  const long base = (g / inner) * n * inner + g % inner;
  NB_GLOBAL const T* xr = x + x_off + base;
  NB_GLOBAL T* yr = y + y_off + base;
  // The CPU starts from -inf; starting from the first element gives the same
  // results (a NaN first makes every output NaN either way) and keeps double
  // out of float32 programs (devices without cl_khr_fp64).
  T m = xr[0];
  for (long i = 1; i < n; ++i) m = xr[i * inner] > m ? xr[i * inner] : m;
  T sum = 0;
  if (log_softmax) {
    for (long i = 0; i < n; ++i) sum += NB_EXP(xr[i * inner] - m);
    const T lse = m + NB_LOG(sum);
    for (long i = 0; i < n; ++i) yr[i * inner] = xr[i * inner] - lse;
  } else {
    for (long i = 0; i < n; ++i) {
      const T e = NB_EXP(xr[i * inner] - m);
      yr[i * inner] = e;
      sum += e;
    }
    const T inv = (T)1 / sum;
    for (long i = 0; i < n; ++i) yr[i * inner] *= inv;
  }
}
)DC";

}  // namespace

const char* softmax_source() { return kSoftmax; }

}  // namespace nabla::device_c
