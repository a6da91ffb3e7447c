// adam_update (optimizer_update.h): a table op with three outputs and a CPU
// kernel on kernels/cpu/adam_update.h, the loop optim::Adam runs.
#include <cmath>

#include "nabla/kernels/cpu/adam_update.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"
#include "nabla/ops/optimizer_update.h"

namespace nabla {
namespace {

const char* const kInputNames[] = {"param", "grad", "exp_avg", "exp_avg_sq", "step_size", "bias_correction2_sqrt"};

// attrs: beta1, beta2, eps
OutputMetas infer_adam_update(const OpDef& op, Inputs in, const Attrs& a) {
  const double beta1 = a.f(0), beta2 = a.f(1), eps = a.f(2);
  NABLA_CHECK(beta1 >= 0.0 && beta1 < 1.0, op.name, ": beta1 must be in [0, 1), got ", beta1);
  NABLA_CHECK(beta2 >= 0.0 && beta2 < 1.0, op.name, ": beta2 must be in [0, 1), got ", beta2);
  NABLA_CHECK(std::isfinite(eps) && eps >= 0.0, op.name, ": eps must be >= 0, got ", eps);
  const DType dt = in[0].dtype();
  NABLA_CHECK(dt == kFloat32 || dt == kFloat64, op.name, ": param must be float32 or float64, got ", dt);
  for (int k = 1; k < 6; ++k) {
    NABLA_CHECK(in[k].dtype() == dt, op.name, ": ", kInputNames[k], " has dtype ", in[k].dtype(),
                "; expected param's dtype ", dt);
    if (k < 4)
      NABLA_CHECK(in[k].sizes() == in[0].sizes(), op.name, ": ", kInputNames[k], " has shape ", in[k].sizes(),
                  "; expected param's shape ", in[0].sizes());
    else
      NABLA_CHECK(in[k].dim() == 0, op.name, ": ", kInputNames[k], " must be a 0-dim tensor, got shape ",
                  in[k].sizes());
  }
  return {{in[0].sizes(), dt}, {in[0].sizes(), dt}, {in[0].sizes(), dt}};
}

bool same_memory(const Tensor& a, const Tensor& b) {
  return a.impl()->storage.get() == b.impl()->storage.get() && a.impl()->offset == b.impl()->offset &&
         a.strides() == b.strides();
}

// Outputs start as copies of param, exp_avg and exp_avg_sq (nothing to copy
// where the Session passes those very buffers: an update in place), then
// one pass updates them.
void adam_update_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor grad = cpu::contiguous_input(in[1]);
  const int source[3] = {0, 2, 3};
  for (int k = 0; k < 3; ++k) {
    NABLA_CHECK(out[k].is_contiguous(), "adam_update: internal error: output ", k, " is not contiguous");
    if (same_memory(out[k], in[source[k]])) continue;
    const Tensor src[1] = {in[source[k]]};
    Tensor dst[1] = {out[k]};
    cpu::cast_kernel(src, {}, dst);
  }
  cpu::AdamConstants c;
  c.beta1 = a.f(0);
  c.one_minus_beta1 = 1.0 - c.beta1;
  c.beta2 = a.f(1);
  c.one_minus_beta2 = 1.0 - c.beta2;
  c.eps = a.f(2);
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      c.step_size = static_cast<double>(*static_cast<const T*>(in[4].raw_data()));
      c.bias_correction2_sqrt = static_cast<double>(*static_cast<const T*>(in[5].raw_data()));
      cpu::adam_update<T>(c, static_cast<T*>(out[0].raw_data()), static_cast<const T*>(grad.raw_data()),
                          static_cast<T*>(out[1].raw_data()), static_cast<T*>(out[2].raw_data()), grad.numel());
    } else {
      fail("adam_update: unsupported dtype ", in[0].dtype());
    }
  });
}

}  // namespace

extern const OpDef adam_update_op{.name = "adam_update",
                                  .num_inputs = 6,
                                  .attr_names = "beta1,beta2,eps",
                                  .infer = infer_adam_update,
                                  .kernels = {adam_update_kernel},
                                  .flags = kNonDifferentiable,
                                  .updates_input = {0, 2, 3, -1}};

namespace {
detail::RegisterOps register_adam_update{&adam_update_op};
}

TensorList adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                       const Tensor& step_size, const Tensor& bias_correction2_sqrt, double beta1, double beta2,
                       double eps) {
  const Tensor ins[6] = {param, grad, exp_avg, exp_avg_sq, step_size, bias_correction2_sqrt};
  return call(adam_update_op, Inputs(ins, 6), {beta1, beta2, eps});
}

}  // namespace nabla
