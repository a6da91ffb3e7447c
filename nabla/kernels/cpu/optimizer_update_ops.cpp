// The CPU kernel of adam_update (ops/optimizer_update_ops.cpp) on the loop
// of kernels/cpu/adam_update.cpp.
#include "nabla/core/storage.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/kernels/cpu/adam_update.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef adam_update_op;

namespace cpu {
namespace {

bool same_memory(const Tensor& a, const Tensor& b) {
  return a.impl()->storage.get() == b.impl()->storage.get() && a.impl()->offset == b.impl()->offset &&
         a.strides() == b.strides();
}

// Outputs start as copies of param, exp_avg and exp_avg_sq (nothing to copy
// where the Session passes those very buffers: an update in place), then
// one pass updates them.
void adam_update_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor grad = contiguous_input(in[1]);
  const int source[3] = {0, 2, 3};
  for (int k = 0; k < 3; ++k) {
    NABLA_CHECK(out[k].is_contiguous(), "adam_update: internal error: output ", k, " is not contiguous");
    if (same_memory(out[k], in[source[k]])) continue;
    const Tensor src[1] = {in[source[k]]};
    Tensor dst[1] = {out[k]};
    cast_kernel(src, {}, dst);
  }
  AdamConstants c;
  c.beta1 = a.f(0);
  c.one_minus_beta1 = 1.0 - c.beta1;
  c.beta2 = a.f(1);
  c.one_minus_beta2 = 1.0 - c.beta2;
  c.eps = a.f(2);
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      c.step_size = static_cast<double>(*static_cast<const T*>(in[4].raw_data()));
      c.bias_correction2_sqrt = static_cast<double>(*static_cast<const T*>(in[5].raw_data()));
      adam_update<T>(c, static_cast<T*>(out[0].raw_data()), static_cast<const T*>(grad.raw_data()),
                     static_cast<T*>(out[1].raw_data()), static_cast<T*>(out[2].raw_data()), grad.numel());
    } else {
      fail("adam_update: unsupported dtype ", in[0].dtype());
    }
  });
}

const KernelRegistrar kOptimizerUpdateKernels{DeviceType::CPU, {
    {adam_update_op, adam_update_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla
