// Adam / AdamW update (torch/optim/adam.py and adamw.py, _single_tensor_*, 1.13):
//   g = maximize ? -g : g;  Adam: g += wd * p;  AdamW: p *= 1 - lr * wd
//   m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
//   vmax = max(vmax, v) (amsgrad);  denom = sqrt(v or vmax) / sqrt(1 - b2^t) + eps
//   p -= lr / (1 - b1^t) * m / denom
#include "nabla/optim/adam.h"

#include <cmath>

#include "nabla/core/parallel.h"
#include "nabla/core/storage.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/ops/ops.h"

namespace nabla::optim {

namespace {
Options adam_defaults(double weight_decay) {
  return {{"lr", 1e-3},          {"beta1", 0.9},    {"beta2", 0.999},   {"eps", 1e-8},
          {"weight_decay", weight_decay}, {"amsgrad", 0.0}, {"maximize", 0.0}};
}
// Float32 hyper-parameters and constants of one fused update, each rounded
// from double exactly as the tensor expressions below round their scalars.
struct FusedAdam {
  float beta1, one_minus_beta1, beta2, one_minus_beta2, weight_decay, decay_factor, bias_correction2_sqrt, eps,
      step_size;
  bool decoupled, weight_decay_on, maximize;
};

// The whole update in one pass over float32 memory, with the operations of
// the tensor expressions in the same order and each result rounded to float
// (no contraction into FMAs), so it gives bit-identical results, without the
// seven temporaries and ten passes the tensor expressions make. The options
// are template parameters and this file is built with -fno-math-errno (sqrt
// of a negative v cannot happen; a NaN propagates as in the tensor
// expression), so the loop has no branch or libm call and vectorizes: IEEE sqrt and division give the same bits in
// vector lanes as in scalar code.
template <bool Maximize, bool Decoupled, bool WeightDecay>
__attribute__((optimize("fp-contract=off"))) void fused_adam_loop(
    const FusedAdam& h, float* __restrict p, const float* __restrict grad, float* __restrict m,
    float* __restrict v, int64_t begin, int64_t end) {
  const float beta1 = h.beta1, one_minus_beta1 = h.one_minus_beta1, beta2 = h.beta2,
              one_minus_beta2 = h.one_minus_beta2, weight_decay = h.weight_decay, decay_factor = h.decay_factor,
              bias_correction2_sqrt = h.bias_correction2_sqrt, eps = h.eps, step_size = h.step_size;
  for (int64_t i = begin; i < end; ++i) {
    float g = Maximize ? -grad[i] : grad[i];
    float pi = p[i];
    if constexpr (Decoupled) pi = pi * decay_factor;
    else if constexpr (WeightDecay) g = g + pi * weight_decay;
    float mi = m[i] * beta1;
    mi = mi + g * one_minus_beta1;
    float gg = g * g;
    float vi = v[i] * beta2;
    vi = vi + gg * one_minus_beta2;
    float denom = std::sqrt(vi) / bias_correction2_sqrt;
    denom = denom + eps;
    float u = mi / denom;
    u = u * step_size;
    p[i] = pi - u;
    m[i] = mi;
    v[i] = vi;
  }
}

void fused_adam_range(const FusedAdam& h, float* p, const float* grad, float* m, float* v, int64_t begin,
                      int64_t end) {
  auto run = [&]<bool Maximize>() {
    if (h.decoupled)
      fused_adam_loop<Maximize, true, false>(h, p, grad, m, v, begin, end);
    else if (h.weight_decay_on)
      fused_adam_loop<Maximize, false, true>(h, p, grad, m, v, begin, end);
    else
      fused_adam_loop<Maximize, false, false>(h, p, grad, m, v, begin, end);
  };
  if (h.maximize)
    run.template operator()<true>();
  else
    run.template operator()<false>();
}

bool fusable(const Tensor& t, const Tensor& p) {
  return t.defined() && t.dtype() == kFloat32 && t.is_contiguous() && t.sizes() == p.sizes() &&
         t.device() == p.device();
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, Options options) : Adam(one_group(std::move(params)), std::move(options)) {}
Adam::Adam(std::vector<ParamGroup> groups, Options options)
    : Adam("Adam", false, std::move(groups), std::move(options)) {}

Adam::Adam(const char* name, bool decoupled, std::vector<ParamGroup> groups, Options options)
    : Optimizer(name, merge_options(name, adam_defaults(decoupled ? 1e-2 : 0.0), options)), decoupled_(decoupled) {
  init(std::move(groups));
}

AdamW::AdamW(std::vector<Tensor> params, Options options) : AdamW(one_group(std::move(params)), std::move(options)) {}
AdamW::AdamW(std::vector<ParamGroup> groups, Options options)
    : Adam("AdamW", true, std::move(groups), std::move(options)) {}

void Adam::check_group(const ParamGroup& g) const {
  check_range(g, "lr", 0.0, true, INFINITY, false, "lr >= 0");
  check_range(g, "eps", 0.0, true, INFINITY, false, "eps >= 0");
  check_range(g, "beta1", 0.0, true, 1.0, false, "beta1 in [0, 1)");
  check_range(g, "beta2", 0.0, true, 1.0, false, "beta2 in [0, 1)");
  check_range(g, "weight_decay", 0.0, true, INFINITY, false, "weight_decay >= 0");
  check_flag(g, "amsgrad");
  check_flag(g, "maximize");
}

void Adam::update(const ParamGroup& g, Tensor& p, const Tensor& grad_arg, ParamState& s) {
  // A strided gradient (a transposed view, as a compiled step's gradient of a
  // Linear weight is) is copied once so the fused loop below can take it.
  const Tensor grad_in = grad_arg.is_contiguous() ? grad_arg : grad_arg.contiguous();
  const double lr = g.get("lr"), beta1 = g.get("beta1"), beta2 = g.get("beta2"), eps = g.get("eps");
  const double weight_decay = g.get("weight_decay");
  const bool amsgrad = g.get("amsgrad") != 0.0;
  Tensor grad = g.get("maximize") != 0.0 ? -grad_in : grad_in;
  if (s.buffers.empty()) {
    s.buffers["exp_avg"] = zeros_like(p);
    s.buffers["exp_avg_sq"] = zeros_like(p);
    if (amsgrad) s.buffers["max_exp_avg_sq"] = zeros_like(p);
  }
  const double step = static_cast<double>(s.step);
  const double bias_correction1 = 1.0 - std::pow(beta1, step);
  const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(beta2, step));
  const double step_size = lr / bias_correction1;
  Tensor& exp_avg = s.buffers["exp_avg"];
  Tensor& exp_avg_sq = s.buffers["exp_avg_sq"];
  // Contiguous float32 without amsgrad (the usual case): one fused pass.
  if (!amsgrad && p.device().is_cpu() && fusable(p, p) && fusable(grad_in, p) && fusable(exp_avg, p) &&
      fusable(exp_avg_sq, p)) {
    FusedAdam h{static_cast<float>(beta1),
                static_cast<float>(1.0 - beta1),
                static_cast<float>(beta2),
                static_cast<float>(1.0 - beta2),
                static_cast<float>(weight_decay),
                static_cast<float>(1.0 - lr * weight_decay),
                static_cast<float>(bias_correction2_sqrt),
                static_cast<float>(eps),
                static_cast<float>(step_size),
                decoupled_,
                weight_decay != 0.0,
                g.get("maximize") != 0.0};
    float* pp = static_cast<float*>(p.raw_data());
    const float* pg = static_cast<const float*>(grad_in.raw_data());
    float* pm = static_cast<float*>(exp_avg.raw_data());
    float* pv = static_cast<float*>(exp_avg_sq.raw_data());
    parallel_for(0, p.numel(), kParallelGrain, [&](int64_t b, int64_t e) { fused_adam_range(h, pp, pg, pm, pv, b, e); });
    // What the in-place tensor ops would have done, for autograd's checks.
    for (Tensor* t : {&p, &exp_avg, &exp_avg_sq}) t->impl()->storage->bump_version();
    return;
  }
  if (decoupled_) p.mul_(1.0 - lr * weight_decay);
  else if (weight_decay != 0.0) grad = grad + p * weight_decay;
  exp_avg.mul_(beta1).add_(grad * (1.0 - beta1));
  exp_avg_sq.mul_(beta2).add_(grad * grad * (1.0 - beta2));
  Tensor denom;
  if (amsgrad) {
    Tensor& max_sq = s.buffers["max_exp_avg_sq"];
    if (!max_sq.defined()) max_sq = zeros_like(p);
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    denom = max_sq.sqrt() / bias_correction2_sqrt + eps;
  } else {
    denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps;
  }
  p.sub_(exp_avg / denom * step_size);
}

}  // namespace nabla::optim
