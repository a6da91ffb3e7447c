#include "nabla/kernels/accel/register.h"

#include "nabla/kernels/accel/runtime.h"

namespace nabla::accel {

void register_accel_kernels(DeviceType type) {
  NABLA_CHECK(find_runtime(type) != nullptr, "register_accel_kernels: no runtime registered for ",
              DeviceTypeName(type));
  register_adam_update_kernel(type);
  register_conv_kernels(type);
  register_draw_kernels(type);
  register_elementwise_kernels(type);
  register_factory_kernels(type);
  register_indexing_kernels(type);
  register_interpolate_kernels(type);
  register_loss_kernels(type);
  register_matmul_kernels(type);
  register_pool_kernels(type);
  register_random_kernels(type);
  register_reduce_kernels(type);
  register_rearrange_kernels(type);
  register_row_reduce_kernels(type);
  register_slice_backward_kernel(type);
  register_softmax_kernels(type);
  register_sort_kernels(type);
}

}  // namespace nabla::accel
