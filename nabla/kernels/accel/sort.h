// Accelerator kernels of sort and topk (kernels/device/sort.h's merge passes), and
// the stable row sort that randperm (draws.cpp) shares.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"
#include "nabla/kernels/accel/runtime.h"

namespace nabla::accel {

// How rows are ordered (device/sort.h's merge modes).
enum class SortOrder { Ascending = 0, Descending = 1, ByPosition = 2 };

// Stably sorts each of `rows` rows of n (values, positions) in the dense
// scratch buffers v and idx ([rows * n]); returns the buffers that hold the
// result (v and idx themselves, or the second pair of the ping-pong).
std::pair<Tensor, Tensor> sort_rows(DeviceRef dev, const char* op, Tensor v, Tensor idx, int64_t rows, int64_t n,
                                    SortOrder order);

void register_sort_kernels(DeviceType type);

}  // namespace nabla::accel
