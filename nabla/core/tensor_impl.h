// TensorImpl: what a Tensor handle points to. A concrete tensor has storage; a
// symbolic one (a value in a graph under construction) has sizes and dtype but
// no storage. Views share storage with different sizes/strides/offset.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "nabla/core/dtype.h"
#include "nabla/core/device.h"
#include "nabla/core/ref.h"
#include "nabla/core/small_vector.h"
#include "nabla/core/storage.h"

namespace nabla {

struct AutogradMeta;

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Ref<Storage> storage, Shape sizes, Shape strides, int64_t offset, DType dtype, Device device);
  ~TensorImpl() override;
  static void* operator new(std::size_t n) { return allocate_small_object(n); }
  static void operator delete(void* p, std::size_t n) { deallocate_small_object(p, n); }

  Ref<Storage> storage;
  Shape sizes;
  Shape strides;
  int64_t offset = 0;  // in elements
  int64_t numel = 1;
  DType dtype;
  Device device;
  std::shared_ptr<AutogradMeta> autograd;  // null until requires_grad or grad_fn is set
  Ref<RefCounted> symbolic;                // graph value for symbolic tensors (graph mode)
  bool is_view = false;                    // made by a view op: shares a base tensor's storage

  bool is_contiguous() const;
};

// Both read the sizes through a span, so that a Shape is not first copied
// into an IntList (which owns its values) on every op's output.
// Row-major strides of a shape.
Shape contiguous_strides(std::span<const int64_t> sizes);
inline Shape contiguous_strides(const IntList& sizes) { return contiguous_strides(std::span<const int64_t>(sizes.data(), sizes.size())); }
template <std::size_t N>
Shape contiguous_strides(const SmallVector<int64_t, N>& sizes) {
  return contiguous_strides(std::span<const int64_t>(sizes));
}
// Product of sizes; throws nabla::Error naming `api` on negative sizes or overflow.
int64_t checked_numel(std::span<const int64_t> sizes, const char* api);
inline int64_t checked_numel(const IntList& sizes, const char* api) {
  return checked_numel(std::span<const int64_t>(sizes.data(), sizes.size()), api);
}
template <std::size_t N>
int64_t checked_numel(const SmallVector<int64_t, N>& sizes, const char* api) {
  return checked_numel(std::span<const int64_t>(sizes), api);
}

}  // namespace nabla
