#include "nabla/core/tensor.h"

#include "nabla/core/trace_context.h"

#include <limits>
#include <new>

namespace nabla {

TensorImpl::TensorImpl(Ref<Storage> s, Shape sz, Shape st, int64_t off, DType dt, Device dev)
    : storage(std::move(s)), sizes(std::move(sz)), strides(std::move(st)), offset(off), dtype(dt), device(dev) {
  numel = 1;
  for (int64_t d : sizes) numel *= d;
}

TensorImpl::~TensorImpl() = default;

bool TensorImpl::is_contiguous() const {
  int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Shape contiguous_strides(std::span<const int64_t> sizes) {
  Shape strides(sizes.size(), 1);
  int64_t acc = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t checked_numel(std::span<const int64_t> sizes, const char* api) {
  // span: the product of the sizes with 0s counted as 1s, which the strides
  // (contiguous_strides) reach; it bounds the element count, so one check
  // covers both, also for an empty tensor with huge other dims.
  int64_t n = 1, span = 1;
  const bool empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  for (int64_t d : sizes) {
    NABLA_CHECK(d >= 0, api, ": negative dimension in size ", IntList(sizes), "; sizes must be >= 0");
    const int64_t step = std::max<int64_t>(d, 1);
    NABLA_CHECK(span <= std::numeric_limits<int64_t>::max() / step, api, ": size ", IntList(sizes),
                " has more elements than fit in int64", empty ? " (not counting its 0-size dims)" : "");
    span *= step;
    n *= d;
  }
  return n;
}

Tensor make_empty(IntList sizes, DType dtype, Device device, const char* api) {
  int64_t n = checked_numel(sizes, api);
  std::size_t bytes = static_cast<std::size_t>(n) * itemsize(dtype);
  NABLA_CHECK(n == 0 || bytes / itemsize(dtype) == static_cast<std::size_t>(n), api, ": size ", sizes, " of ", dtype,
              " needs ", n, " x ", itemsize(dtype), " bytes, which overflows the addressable memory");
  try {
    auto storage = make_ref<Storage>(bytes, device);
    return Tensor(make_ref<TensorImpl>(std::move(storage), sizes.shape(), contiguous_strides(sizes), 0, dtype, device));
  } catch (const OutOfMemoryError& e) {
    // Name the op and the tensor (the allocator knows only the bytes).
    throw OutOfMemoryError(detail::concat(api, ": out of memory for a tensor of shape ", sizes, " and dtype ", dtype,
                                          ": ", e.what()),
                           e.bytes);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(detail::concat(api, ": out of memory for a tensor of shape ", sizes, " and dtype ", dtype,
                                          " (", bytes, " bytes)"),
                           bytes);
  }
}

Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset) {
  NABLA_CHECK(base.defined(), "make_view: the base is an undefined tensor");
  TensorImpl* b = base.impl();
  return Tensor(make_ref<TensorImpl>(b->storage, std::move(sizes), std::move(strides), offset, b->dtype, b->device));
}

void Tensor::fail_undefined(const char* method) {
  fail(method, ": called on an undefined tensor (a default-constructed or moved-from Tensor has no data); "
       "check defined() first");
}

int64_t Tensor::size(int64_t d) const {
  int64_t n = static_cast<int64_t>(checked("Tensor::size")->sizes.size());
  NABLA_CHECK(d >= -n && d < n, "Tensor::size: dim ", d, " is out of range for a tensor of ", n,
              " dims (expected in [", -n, ", ", n - 1, "])");
  return sizes()[static_cast<std::size_t>(d < 0 ? d + n : d)];
}

int64_t Tensor::stride(int64_t d) const {
  int64_t n = static_cast<int64_t>(checked("Tensor::stride")->sizes.size());
  NABLA_CHECK(d >= -n && d < n, "Tensor::stride: dim ", d, " is out of range for a tensor of ", n, " dims");
  return strides()[static_cast<std::size_t>(d < 0 ? d + n : d)];
}

void* Tensor::raw_data() const {
  TensorImpl* p = checked("Tensor::raw_data");
  if (!p->storage) [[unlikely]] {
    // Inside compile()'s trace the symbolic tensor is the user's own input or
    // a value computed from it: say so, and what replaces a branch on data.
    if (const std::string* ctx = detail::trace_context())
      fail(*ctx, ": the function reads the data of a traced tensor (item(), data_ptr(), to_vector(), at()); "
           "compile() traces it once per input signature on values without data, so a C++ `if` or loop on "
           "tensor data cannot be traced (it would silently fix one branch): use graph::cond or "
           "graph::while_loop for data-dependent control flow, or read the data outside the compiled function");
    fail("Tensor: a symbolic tensor (a graph value) has no data; run the graph in a Session");
  }
  NABLA_CHECK(p->device.is_cpu(), "Tensor::data_ptr: the memory of a tensor on ", p->device,
              " is not host-addressable; copy it to the host with .cpu() first");
  return static_cast<char*>(p->storage->handle()) + p->offset * static_cast<int64_t>(itemsize(p->dtype));
}

uint32_t Tensor::version() const {
  TensorImpl* p = checked("Tensor::version");
  return p->storage ? p->storage->version() : 0;
}

}  // namespace nabla
