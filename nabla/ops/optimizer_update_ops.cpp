// adam_update (optimizer_update.h): a table op with three outputs (the CPU's
// kernel: kernels/cpu/optimizer_update_ops.cpp), and its in-place form, which
// optim::Adam runs.
#include <cmath>

#include "nabla/core/storage.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/kernel_registry.h"
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

}  // namespace

extern constinit const OpDef adam_update_op{.name = "adam_update",
                                            .num_inputs = 6,
                                            .attr_names = "beta1,beta2,eps",
                                            .infer = infer_adam_update,
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

void adam_update_(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, const Tensor& step_size,
                  const Tensor& bias_correction2_sqrt, double beta1, double beta2, double eps) {
  const Tensor ins[6] = {param, grad, exp_avg, exp_avg_sq, step_size, bias_correction2_sqrt};
  const Attrs attrs{beta1, beta2, eps};
  for (int k = 0; k < 6; ++k) {
    NABLA_CHECK(ins[k].defined(), "adam_update_: ", kInputNames[k], " is an undefined tensor");
    NABLA_CHECK(ins[k].device() == param.device(), "adam_update_: expected all inputs on one device, got param on ",
                param.device(), " and ", kInputNames[k], " on ", ins[k].device(), "; move them with .to(device)");
  }
  adam_update_op.infer(adam_update_op, Inputs(ins, 6), attrs);
  Tensor outs[3] = {param, exp_avg, exp_avg_sq};
  for (const Tensor& t : outs)
    NABLA_CHECK(t.is_contiguous(), "adam_update_: param, exp_avg and exp_avg_sq must be contiguous to be updated "
                "in place");
  kernel_for(adam_update_op, param.device(), param.dtype(), "_")(adam_update_op, Inputs(ins, 6), attrs, outs);
  for (Tensor* t : {&param, &exp_avg, &exp_avg_sq}) t->impl()->storage->bump_version();
}

}  // namespace nabla
