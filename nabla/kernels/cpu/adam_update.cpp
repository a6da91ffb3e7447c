// Built with -fno-math-errno (CMakeLists.txt): sqrt then has no libm call or
// branch, so the loop vectorizes; IEEE sqrt and division give the same bits
// in vector lanes as in scalar code.
//
// The loop's cost beside its memory traffic is its two divisions and square
// root per element. One division is by a constant of the whole update,
// bias_correction2_sqrt; with fused multiply-add in the instruction set it is
// done as a multiplication by the rounded reciprocal plus one correction step
// (Markstein), which gives the correctly rounded quotient, the same bits as
// the division (see div_by_constant below; tests/ops/adam_division_test.cpp
// checks it against the division).
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

// Whether the compiler emits fused multiply-adds for std::fma (else it is a
// libm call, far slower than the division it would replace).
#if defined(__FMA__) || defined(__AVX512F__)
constexpr bool kHardwareFma = true;
#else
constexpr bool kHardwareFma = false;
#endif

// Whether a / c can go through div_by_constant for every a = sqrt(v) of
// type T: c in [2^-60, 1] (bias_correction2_sqrt = sqrt(1 - beta2^t) is in
// (0, 1]; a user's own scalar may be anything). Then a / c neither
// overflows nor underflows for any finite a >= 0 that sqrt gives, nor does
// the residual a - q0 * c, which Markstein's theorem needs.
template <class T>
bool division_by_constant_applies(T c) {
  return kHardwareFma && c >= std::ldexp(T(1), -60) && c <= T(1);
}

// a / c correctly rounded, for a = sqrt(v) (> 0, +0, +inf or NaN; not -0:
// the loop's v = beta2 * v + (1 - beta2) * g * g adds a +0 or more to the
// old value, so it is never -0) and c as above, given y = 1 / c (rounded):
// q0 = a * y is within an ulp of a / c, the residual r = a - q0 * c is exact
// in one fused multiply-add, and q0 + r * y rounds to a / c (Markstein's
// theorem: y correctly rounded, q0 within one ulp; Muller et al., Handbook
// of Floating-Point Arithmetic, "division with one multiplication and two
// FMAs"). Infinity takes q0, which is exact there (the correction would make
// it NaN); +0 and NaN come out right either way. Only that one comparison:
// each costs the loop ~5% on Zen 4.
template <class T>
NABLA_NO_FP_CONTRACT inline T div_by_constant(T a, T c, T y) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const T q0 = a * y;
  const T r = std::fma(-q0, c, a);
  const T q = std::fma(r, y, q0);
  return a == T(INFINITY) ? q0 : q;
}

// The options are template parameters, so the loop has no branch.
// ByConstant: the division by bias_correction2_sqrt goes through
// div_by_constant (same bits, a third of the loop's divisions gone).
template <class T, bool Maximize, bool Decoupled, bool WeightDecay, bool ByConstant>
NABLA_NO_FP_CONTRACT void adam_loop(const Constants<T>& h, T* __restrict p, const T* __restrict grad,
                                    T* __restrict m, T* __restrict v, int64_t begin, int64_t end) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const T beta1 = h.beta1, one_minus_beta1 = h.one_minus_beta1, beta2 = h.beta2, one_minus_beta2 = h.one_minus_beta2,
          weight_decay = h.weight_decay, decay_factor = h.decay_factor, bias_correction2_sqrt = h.bias_correction2_sqrt,
          eps = h.eps, step_size = h.step_size;
  const T inverse_bias_correction2_sqrt = T(1) / bias_correction2_sqrt;
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
    T denom = ByConstant ? div_by_constant(std::sqrt(vi), bias_correction2_sqrt, inverse_bias_correction2_sqrt)
                         : std::sqrt(vi) / bias_correction2_sqrt;
    denom = denom + eps;
    T u = mi / denom;
    u = u * step_size;
    p[i] = pi - u;
    m[i] = mi;
    v[i] = vi;
  }
}

#undef NABLA_NO_FP_CONTRACT

template <class T, bool Maximize, bool ByConstant>
void adam_range(const AdamConstants& c, const Constants<T>& h, T* p, const T* grad, T* m, T* v, int64_t begin,
                int64_t end) {
  if (c.decoupled)
    adam_loop<T, Maximize, true, false, ByConstant>(h, p, grad, m, v, begin, end);
  else if (c.weight_decay_on)
    adam_loop<T, Maximize, false, true, ByConstant>(h, p, grad, m, v, begin, end);
  else
    adam_loop<T, Maximize, false, false, ByConstant>(h, p, grad, m, v, begin, end);
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
  const bool by_constant = division_by_constant_applies(h.bias_correction2_sqrt);
  // Each thread updates the same part of the parameter and its moments at
  // every step: that part stays in its core's cache (parallel.h).
  parallel_for(
      0, n, kParallelGrain,
      [&](int64_t b, int64_t e) {
        if (c.maximize)
          by_constant ? adam_range<T, true, true>(c, h, p, grad, m, v, b, e)
                      : adam_range<T, true, false>(c, h, p, grad, m, v, b, e);
        else
          by_constant ? adam_range<T, false, true>(c, h, p, grad, m, v, b, e)
                      : adam_range<T, false, false>(c, h, p, grad, m, v, b, e);
      },
      ChunkAffinity::kSameThread);
}

template <class T>
T divide_by_constant(T a, T c) {
  return division_by_constant_applies(c) ? div_by_constant(a, c, T(1) / c) : a / c;
}

template void adam_update<float>(const AdamConstants&, float*, const float*, float*, float*, int64_t);
template void adam_update<double>(const AdamConstants&, double*, const double*, double*, double*, int64_t);
template float divide_by_constant<float>(float, float);
template double divide_by_constant<double>(double, double);

}  // namespace nabla::cpu
