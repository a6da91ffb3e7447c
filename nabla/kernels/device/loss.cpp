#include "nabla/kernels/device/loss.h"

namespace nabla::device_c {
namespace {

constexpr const char* kLoss = R"DC(
// Sample s of input [N, C, d...] (d... flattened to `inner`): its classes
// start at this offset and are `inner` apart.
NB_FN long nb_class_base(long s, long classes, long inner) { return (s / inner) * classes * inner + s % inner; }

NB_KERNEL nb_cross_entropy(NB_GLOBAL A* loss, long loss_off, NB_GLOBAL A* weight_out, long wo_off,
                           NB_GLOBAL uchar* bad, long bad_off, NB_GLOBAL const T* x, long x_off,
                           NB_GLOBAL const long* target, long t_off, NB_GLOBAL const T* w, long w_off, int has_w,
                           long samples, long classes, long inner, long ignore_index, A smoothing) {
  const long s = NB_INDEX;
  if (s >= samples) return;
  loss += loss_off;
  weight_out += wo_off;
  const long t = target[t_off + s];
  loss[s] = 0;
  weight_out[s] = 0;
  if (t == ignore_index) return;
  if (t < 0 || t >= classes) {
    bad[bad_off] = 1;
    return;
  }
  NB_GLOBAL const T* row = x + x_off + nb_class_base(s, classes, inner);
  // log-sum-exp with the row max subtracted: exp never sees a positive argument.
  // From the first class rather than -inf (the same result, a NaN first
  // makes the loss NaN either way): no double in float32 programs.
  A m = (A)row[0];
  for (long c = 1; c < classes; ++c) {
    const A v = (A)row[c * inner];
    m = m < v ? v : m;
  }
  A se = 0;
  for (long c = 0; c < classes; ++c) se += NB_EXP((A)row[c * inner] - m);
  const A lse = m + NB_LOG(se);
  const A wt = has_w ? (A)w[w_off + t] : (A)1;
  A l = -((A)row[t * inner] - lse) * wt * ((A)1 - smoothing);
  if (smoothing > 0) {
    A all = 0;  // sum_c weight[c] * log p_c
    for (long c = 0; c < classes; ++c) all += (has_w ? (A)w[w_off + c] : (A)1) * ((A)row[c * inner] - lse);
    l -= all * smoothing / (A)classes;
  }
  loss[s] = l;
  weight_out[s] = wt;
}

NB_KERNEL nb_nll_loss(NB_GLOBAL A* loss, long loss_off, NB_GLOBAL A* weight_out, long wo_off, NB_GLOBAL uchar* bad,
                      long bad_off, NB_GLOBAL const T* x, long x_off, NB_GLOBAL const long* target, long t_off,
                      NB_GLOBAL const T* w, long w_off, int has_w, long samples, long classes, long inner,
                      long ignore_index) {
  const long s = NB_INDEX;
  if (s >= samples) return;
  loss += loss_off;
  weight_out += wo_off;
  const long t = target[t_off + s];
  loss[s] = 0;
  weight_out[s] = 0;
  if (t == ignore_index) return;
  if (t < 0 || t >= classes) {
    bad[bad_off] = 1;
    return;
  }
  const A wt = has_w ? (A)w[w_off + t] : (A)1;
  loss[s] = -wt * (A)x[x_off + nb_class_base(s, classes, inner) + t * inner];
  weight_out[s] = wt;
}

// -(t log p + (1 - t) log(1 - p)), each log clamped to >= -100 so that p = 0
// or 1 gives a finite loss (PyTorch's convention), times the weight; in T.
NB_KERNEL nb_bce(NB_GLOBAL T* out, long out_off, NB_GLOBAL uchar* bad, long bad_off, NB_GLOBAL const T* p,
                 long p_off, NB_GLOBAL const T* t, long t_off, NB_GLOBAL const T* w, long w_off, int has_w, long n) {
  const long i = NB_INDEX;
  if (i >= n) return;
  const T pi = p[p_off + i], ti = t[t_off + i];
  T l = 0;  // not a probability: the op fails (the host reads *bad)
  if (!(pi >= (T)0 && pi <= (T)1)) {
    bad[bad_off] = 1;
  } else {
    T log_p = NB_LOG(pi), log_q = NB_LOG1P(-pi);
    log_p = log_p < (T)(-100) ? (T)(-100) : log_p;
    log_q = log_q < (T)(-100) ? (T)(-100) : log_q;
    l = -(ti * log_p + ((T)1 - ti) * log_q);
  }
  out[out_off + i] = has_w ? w[w_off + i] * l : l;
}

// The same sums for the losses of nb_bce (T, weight 1 each).
NB_KERNEL nb_loss_blocks(NB_GLOBAL A* loss_part, long lp_off, NB_GLOBAL A* weight_part, long wp_off,
                         NB_GLOBAL const A* loss, long loss_off, NB_GLOBAL const A* weight, long w_off,
                         NB_GLOBAL const T* elems, long e_off, int from_elems, long samples, long block) {
  const long k = NB_INDEX;
  const long begin = k * block;
  if (begin >= samples) return;
  loss_part += lp_off;
  weight_part += wp_off;
  loss += loss_off;
  weight += w_off;
  const long end = begin + block < samples ? begin + block : samples;
  A ls = 0, ws = 0;
  for (long s = begin; s < end; ++s) {
    ls += from_elems ? (A)elems[e_off + s] : loss[s];
    ws += from_elems ? (A)1 : weight[s];
  }
  loss_part[k] = ls;
  weight_part[k] = ws;
}

// An all-ignored batch gives 0/0 = nan under "mean", as in PyTorch.
NB_KERNEL nb_loss_total(NB_GLOBAL T* out, long out_off, NB_GLOBAL const A* loss_part, long lp_off,
                        NB_GLOBAL const A* weight_part, long wp_off, long blocks, int mean) {
  if (NB_INDEX != 0) return;
  loss_part += lp_off;
  weight_part += wp_off;
  A loss = 0, weight = 0;
  for (long k = 0; k < blocks; ++k) {
    loss += loss_part[k];
    weight += weight_part[k];
  }
  out[out_off] = (T)(mean ? loss / weight : loss);
}

NB_KERNEL nb_loss_store(NB_GLOBAL T* out, long out_off, NB_GLOBAL const A* loss, long loss_off, long samples) {
  const long s = NB_INDEX;
  if (s < samples) out[out_off + s] = (T)loss[loss_off + s];
}
)DC";

}  // namespace

const char* loss_source() { return kLoss; }

}  // namespace nabla::device_c
