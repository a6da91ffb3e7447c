// TensorImpl: what a Tensor handle points to. A concrete tensor has storage; a
// symbolic one (a value in a graph under construction) has sizes and dtype but
// no storage. Views share storage with different sizes/strides/offset.
#pragma once
#include <cstdint>
#include <memory>

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

// Row-major strides of a shape.
Shape contiguous_strides(IntList sizes);
// Product of sizes; throws nabla::Error naming `api` on negative sizes or overflow.
int64_t checked_numel(IntList sizes, const char* api);

}  // namespace nabla
