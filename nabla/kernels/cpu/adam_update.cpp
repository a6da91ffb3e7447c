// Built with -fno-math-errno (CMakeLists.txt): sqrt then has no libm call or
// branch, so the loop vectorizes; IEEE sqrt and division give the same bits
// in vector lanes as in scalar code.
#include "nabla/kernels/cpu/adam_update.h"

#include <cmath>

#include "nabla/core/parallel.h"

namespace nabla::cpu {

namespace {

template <class T>
struct Constants {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, weight_decay, decay_factor, bias_correction2_sqrt, eps, step_size;
};

// No fused multiply-adds: each rounding as in optim::Adam's op-by-op
// arithmetic (and PyTorch's). GCC fuses across statements by default
// (-ffp-contract=fast), so it gets the function attribute; clang fuses only
// within one expression and has no optimize attribute (it warns): it gets the
// equivalent pragma in the function body. clang defines __GNUC__ too, so it
// is tested first.
#if defined(__clang__)
#define NABLA_NO_FP_CONTRACT
#elif defined(__GNUC__)
#define NABLA_NO_FP_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define NABLA_NO_FP_CONTRACT
#endif

// The options are template parameters, so the loop has no branch.
template <class T, bool Maximize, bool Decoupled, bool WeightDecay>
NABLA_NO_FP_CONTRACT void adam_loop(const Constants<T>& h, T* __restrict p, const T* __restrict grad,
                                    T* __restrict m, T* __restrict v, int64_t begin, int64_t end) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const T beta1 = h.beta1, one_minus_beta1 = h.one_minus_beta1, beta2 = h.beta2, one_minus_beta2 = h.one_minus_beta2,
          weight_decay = h.weight_decay, decay_factor = h.decay_factor, bias_correction2_sqrt = h.bias_correction2_sqrt,
          eps = h.eps, step_size = h.step_size;
  for (int64_t i = begin; i < end; ++i) {
    T g = Maximize ? -grad[i] : grad[i];
    T pi = p[i];
    if constexpr (Decoupled)
      pi = pi * decay_factor;
    else if constexpr (WeightDecay)
      g = g + pi * weight_decay;
    T mi = m[i] * beta1;
    mi = mi + g * one_minus_beta1;
    T gg = g * g;
    T vi = v[i] * beta2;
    vi = vi + gg * one_minus_beta2;
    T denom = std::sqrt(vi) / bias_correction2_sqrt;
    denom = denom + eps;
    T u = mi / denom;
    u = u * step_size;
    p[i] = pi - u;
    m[i] = mi;
    v[i] = vi;
  }
}

#undef NABLA_NO_FP_CONTRACT

template <class T, bool Maximize>
void adam_range(const AdamConstants& c, const Constants<T>& h, T* p, const T* grad, T* m, T* v, int64_t begin,
                int64_t end) {
  if (c.decoupled)
    adam_loop<T, Maximize, true, false>(h, p, grad, m, v, begin, end);
  else if (c.weight_decay_on)
    adam_loop<T, Maximize, false, true>(h, p, grad, m, v, begin, end);
  else
    adam_loop<T, Maximize, false, false>(h, p, grad, m, v, begin, end);
}

}  // namespace

template <class T>
void adam_update(const AdamConstants& c, T* p, const T* grad, T* m, T* v, int64_t n) {
  const Constants<T> h{static_cast<T>(c.beta1),
                       static_cast<T>(c.one_minus_beta1),
                       static_cast<T>(c.beta2),
                       static_cast<T>(c.one_minus_beta2),
                       static_cast<T>(c.weight_decay),
                       static_cast<T>(c.decay_factor),
                       static_cast<T>(c.bias_correction2_sqrt),
                       static_cast<T>(c.eps),
                       static_cast<T>(c.step_size)};
  parallel_for(0, n, kParallelGrain, [&](int64_t b, int64_t e) {
    if (c.maximize)
      adam_range<T, true>(c, h, p, grad, m, v, b, e);
    else
      adam_range<T, false>(c, h, p, grad, m, v, b, e);
  });
}

template void adam_update<float>(const AdamConstants&, float*, const float*, float*, float*, int64_t);
template void adam_update<double>(const AdamConstants&, double*, const double*, double*, double*, int64_t);

}  // namespace nabla::cpu
