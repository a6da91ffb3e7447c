// What the accelerator kernels of the index-driven ops (indexing.cpp,
// rearrange.cpp) share: strided operands passed as arguments, the programs of
// kernels/device/indexing.h, contiguous copies of any dtype, and the
// device-side index check.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/kernels/device/indexing.h"
#include "nabla/kernels/accel/runtime.h"

namespace nabla::accel {

// Operands walked over one shape, each with its own strides (0: repeated,
// negative: backwards), as a kernel's NB_SIZES and NB_STRIDES arguments.
// Dims of size 1 are dropped and dims every operand walks contiguously are
// merged, so any rank up to kMaxDims after merging runs; more is an Error
// naming `op`.
class StridedOperands {
 public:
  StridedOperands(const char* op, const Shape& sizes, std::initializer_list<Shape> strides);
  int64_t numel() const { return numel_; }
  // The sizes, then each operand's strides (only when numel() > 0).
  void add_to(Launch& k) const;

 private:
  using Dims = std::array<int64_t, device_c::kMaxDims>;
  int64_t numel_ = 1;
  Dims sizes_{};
  std::vector<Dims> strides_;
};

// The kernel `name` of the program that moves elements of `t`'s width
// (kMoveKernels): every dtype, float16 included.
Launch move_kernel(DeviceRef dev, DType t, const char* name, const char* op);
// The kernel `name` of the program that adds elements of dtype `t`
// (kAccumulateKernels and the scatter loop with `+`); an Error naming `op`
// for a dtype the device has no arithmetic for.
Launch accumulate_kernel(DeviceRef dev, DType t, const char* name, const char* op);

// dst = src (same sizes, any strides, same dtype) on the device.
void copy_items(const Tensor& dst, const Tensor& src, const char* op);
// `t` as a contiguous tensor (itself when it is one), for any dtype.
Tensor contiguous_items(const Tensor& t, const char* op);

// A device flag that index kernels set on an index out of range. raised()
// reads it back: that waits for the kernels before it (a synchronization
// per checked op: a kernel cannot throw, and the CPU raises before returning).
class BadIndexFlag {
 public:
  BadIndexFlag(Device device, const char* op);
  const Tensor& tensor() const { return flag_; }
  bool raised();

 private:
  Tensor flag_;
  const char* op_;
};

// The first value of `index` (int64, any device, row-major order) outside
// [lo, hi) and its flat position; false when there is none.
bool first_index_outside(const Tensor& index, int64_t lo, int64_t hi, int64_t& value, int64_t& position);

}  // namespace nabla::accel
