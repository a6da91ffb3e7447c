// Each file of kernels/accel registers its ops' kernels for one device type;
// register_accel_kernels (runtime.h, register.cpp) calls them all.
#pragma once
#include "nabla/core/device.h"

namespace nabla::accel {

void register_adam_update_kernel(DeviceType type);
void register_conv_kernels(DeviceType type);
void register_draw_kernels(DeviceType type);
void register_elementwise_kernels(DeviceType type);
void register_factory_kernels(DeviceType type);
void register_indexing_kernels(DeviceType type);
void register_interpolate_kernels(DeviceType type);
void register_loss_kernels(DeviceType type);
void register_matmul_kernels(DeviceType type);
void register_pool_kernels(DeviceType type);
void register_random_kernels(DeviceType type);
void register_reduce_kernels(DeviceType type);
void register_rearrange_kernels(DeviceType type);
void register_row_reduce_kernels(DeviceType type);
void register_slice_backward_kernel(DeviceType type);
void register_softmax_kernels(DeviceType type);
void register_sort_kernels(DeviceType type);

}  // namespace nabla::accel
