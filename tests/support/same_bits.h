// Whether two concrete tensors hold the same dtype, shape and bytes (saved
// and reloaded graphs, fresh processes: results must be bit for bit equal).
#pragma once
#include <cstring>

#include "nabla/core/tensor.h"

namespace nabla::testing {

inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.raw_data(), y.raw_data(), static_cast<std::size_t>(x.numel()) * itemsize(x.dtype())) == 0;
}

}  // namespace nabla::testing
