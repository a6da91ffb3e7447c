// The accelerator kernel of adam_update (and so of optim::Adam/AdamW's step on an
// accelerator): the fused update of kernels/cpu/adam_update.h in device C,
// the same operations in the same order, with the step size and bias
// correction read from their 0-dim device tensors (no host round trip).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/device/adam_update.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef adam_update_op;  // ops/optimizer_update_ops.cpp

namespace accel {
namespace {

// Inputs: param, grad, exp_avg, exp_avg_sq, step_size, bias_correction2_sqrt;
// attrs: beta1, beta2, eps; outputs: param, exp_avg, exp_avg_sq (the inputs
// themselves for adam_update_).
template <class T>
void run(DType t, Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;  // contiguous copies below are part of this kernel
  Tensor ins[6];
  for (int k = 0; k < 6; ++k) ins[k] = in[k].is_contiguous() ? in[k] : in[k].contiguous();
  const int64_t n = ins[0].numel();
  if (n == 0) return;
  const DeviceRef dev = device_ref(out[0].device(), "adam_update");
  const auto source = [t] { return program({{"T", t}}, device_c::kAdamUpdate); };
  Launch k(dev, std::string("adam_update|") + std::string(dtype_name(t)), "nb_adam", source, "adam_update");
  for (int o = 0; o < 3; ++o) k.arg(out[o]);
  for (const Tensor& t : ins) k.arg(t);
  k.arg(n);
  const T beta1 = static_cast<T>(a.f(0)), one_minus_beta1 = static_cast<T>(1.0 - a.f(0));
  const T beta2 = static_cast<T>(a.f(1)), one_minus_beta2 = static_cast<T>(1.0 - a.f(1)), eps = static_cast<T>(a.f(2));
  for (const T c : {beta1, one_minus_beta1, beta2, one_minus_beta2, eps}) k.arg(c);
  k.run(static_cast<std::size_t>(n));
}

void adam_update_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const DType t = in[0].dtype();
  if (t == kFloat32) return run<float>(t, in, a, out);
  NABLA_CHECK(t == kFloat64, "adam_update: on an accelerator takes float32 or float64, got ", t);
  check_dtype("adam_update", t, device_ref(out[0].device(), "adam_update"));
  run<double>(t, in, a, out);
}

}  // namespace

void register_adam_update_kernel(DeviceType type) { register_kernel(adam_update_op, type, adam_update_kernel); }

}  // namespace accel
}  // namespace nabla
