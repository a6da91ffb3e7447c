#include "nabla/kernels/device/draws.h"

#include <string>

#include "nabla/kernels/device/philox.h"

namespace nabla::device_c {
namespace {

constexpr const char* kDraws = R"DC(
// x * 0, not 0, where dropped: a dropped NaN or inf stays NaN, as in PyTorch
// (input * mask / (1 - p)), so a diverging network is not hidden.
NB_KERNEL nb_dropout(NB_GLOBAL T* y, long y_off, NB_GLOBAL uchar* mask, long m_off, NB_GLOBAL const T* x, long x_off,
                     long n, ulong seed, ulong offset, double keep_prob, T scale) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const int keep = nb_uniform(i, seed, offset) < keep_prob;
  mask[m_off + i] = (uchar)keep;
  y[y_off + i] = x[x_off + i] * (keep ? scale : (T)0);
}

// 1 where rand's stored element i < p[i]; the flag *bad set where p is not in
// [0, 1] (every writer writes 1).
NB_KERNEL nb_bernoulli(NB_GLOBAL T* out, long out_off, NB_GLOBAL uchar* bad, long bad_off, NB_GLOBAL const T* p,
                       long p_off, long n, ulong seed, ulong offset) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const double v = (double)p[p_off + i];
  if (!(v >= 0.0 && v <= 1.0)) bad[bad_off] = 1;
  out[out_off + i] = (T)((double)(float)nb_uniform(i, seed, offset) < v ? 1 : 0);
}

NB_KERNEL nb_randperm_keys(NB_GLOBAL float* keys, long k_off, NB_GLOBAL long* idx, long i_off, long n, ulong seed,
                           ulong offset) {
  const long i = NB_INDEX;
  if (i >= n) return;
  keys[k_off + i] = (float)nb_uniform(i, seed, offset);
  idx[i_off + i] = i;
}

// As the cast op converts int64: bool is "not 0", the others as C converts.
NB_KERNEL nb_randperm_store(NB_GLOBAL T* out, long out_off, NB_GLOBAL const long* idx, long i_off, long n,
                            int to_bool) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const long v = idx[i_off + i];
  out[out_off + i] = to_bool ? (T)(v != 0) : (T)v;
}
)DC";

}  // namespace

const char* draws_source() {
  static const std::string source = std::string(philox_source()) + kDraws;
  return source.c_str();
}

}  // namespace nabla::device_c
