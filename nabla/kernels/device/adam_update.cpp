#include "nabla/kernels/device/adam_update.h"

namespace nabla::device_c {

const char* const kAdamUpdate = R"DC(
NB_NO_CONTRACT
NB_KERNEL nb_adam(NB_GLOBAL T* p_out, long p_out_off, NB_GLOBAL T* m_out, long m_out_off,
                  NB_GLOBAL T* v_out, long v_out_off, NB_GLOBAL const T* p_in, long p_in_off,
                  NB_GLOBAL const T* g, long g_off, NB_GLOBAL const T* m_in, long m_in_off,
                  NB_GLOBAL const T* v_in, long v_in_off, NB_GLOBAL const T* step_size, long ss_off,
                  NB_GLOBAL const T* bc2, long bc2_off, long n, T beta1, T one_minus_beta1, T beta2,
                  T one_minus_beta2, T eps) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const T gi = g[g_off + i];
  T mi = m_in[m_in_off + i] * beta1;
  mi = mi + gi * one_minus_beta1;
  const T gg = gi * gi;
  T vi = v_in[v_in_off + i] * beta2;
  vi = vi + gg * one_minus_beta2;
  T denom = NB_SQRT(vi) / bc2[bc2_off];
  denom = denom + eps;
  T u = mi / denom;
  u = u * step_size[ss_off];
  p_out[p_out_off + i] = p_in[p_in_off + i] - u;
  m_out[m_out_off + i] = mi;
  v_out[v_out_off + i] = vi;
}
)DC";

}  // namespace nabla::device_c
