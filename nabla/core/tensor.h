// Tensor: a cheap handle (one pointer) to a TensorImpl. Copies share data, like
// torch::Tensor. Methods are thin wrappers over the ops in nabla/ops; they are
// declared here so that `x.mm(w).clamp_min(0)` reads like PyTorch.
#pragma once
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/core/dtype.h"
#include "nabla/core/device.h"
#include "nabla/core/error.h"
#include "nabla/core/scalar.h"
#include "nabla/core/small_vector.h"
#include "nabla/core/tensor_impl.h"

namespace nabla {

namespace autograd {
class Node;
}

class Tensor;
using TensorList = SmallVector<Tensor, 4>;

// Options for factories: dtype, device, requires_grad.
struct TensorOptions {
  DType dtype_ = kFloat32;
  Device device_ = kCPU;
  bool requires_grad_ = false;
  bool dtype_set_ = false;   // whether dtype was given (arange infers it otherwise)
  bool device_set_ = false;  // whether device was given (*_like keep the input's otherwise)
  TensorOptions() = default;
  TensorOptions(DType t) : dtype_(t), dtype_set_(true) {}
  TensorOptions(Device d) : device_(d), device_set_(true) {}
  TensorOptions dtype(DType t) const { auto o = *this; o.dtype_ = t; o.dtype_set_ = true; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; o.device_set_ = true; return o; }
  TensorOptions requires_grad(bool r = true) const { auto o = *this; o.requires_grad_ = r; return o; }
};
inline TensorOptions dtype(DType t) { return TensorOptions().dtype(t); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

// The `correction` of var/std (PyTorch 1.13's keyword argument): divide by
// N - value. A strong type, so that `var(x, {1}, 2)` cannot silently mean
// unbiased = true (integers there are a compile error; see docs/tensors.md).
struct Correction {
  int64_t value;
  constexpr explicit Correction(int64_t v) : value(v) {}
};

// One index of Tensor::index: an integer, a slice (start, stop, step; missing
// bounds are open: None or std::nullopt), None (a new axis of size 1) or Ellipsis.
struct NoneIndex {};
struct EllipsisIndex {};
inline constexpr NoneIndex None{};
inline constexpr EllipsisIndex Ellipsis{};
struct SliceBound {
  std::optional<int64_t> value;
  SliceBound(int64_t v) : value(v) {}
  SliceBound(int v) : value(v) {}
  SliceBound(NoneIndex) {}
  SliceBound(std::nullopt_t) {}
  SliceBound(std::optional<int64_t> v) : value(v) {}
};
struct Slice {
  std::optional<int64_t> start, stop;
  int64_t step = 1;
  Slice(SliceBound start = None, SliceBound stop = None, int64_t step = 1)
      : start(start.value), stop(stop.value), step(step) {}
};
struct TensorIndex {
  enum Kind { Integer, SliceKind, NoneKind, EllipsisKind } kind;
  int64_t integer = 0;
  Slice slice;
  TensorIndex(int64_t i) : kind(Integer), integer(i) {}
  TensorIndex(int i) : kind(Integer), integer(i) {}
  TensorIndex(Slice s) : kind(SliceKind), slice(s) {}
  TensorIndex(NoneIndex) : kind(NoneKind) {}
  TensorIndex(EllipsisIndex) : kind(EllipsisKind) {}
};

using TensorHook = std::function<Tensor(const Tensor&)>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata -------------------------------------------------------
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const Shape& sizes() const { return checked("Tensor::sizes")->sizes; }
  const Shape& shape() const { return checked("Tensor::shape")->sizes; }
  const Shape& strides() const { return checked("Tensor::strides")->strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(checked("Tensor::dim")->sizes.size()); }
  int64_t numel() const { return checked("Tensor::numel")->numel; }
  int64_t storage_offset() const { return checked("Tensor::storage_offset")->offset; }
  DType dtype() const { return checked("Tensor::dtype")->dtype; }
  Device device() const { return checked("Tensor::device")->device; }
  bool is_contiguous() const { return checked("Tensor::is_contiguous")->is_contiguous(); }
  bool is_floating_point() const { return is_floating(checked("Tensor::is_floating_point")->dtype); }
  bool is_symbolic() const { return defined() && !impl_->storage; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  std::string str() const;  // printed like PyTorch

  // Raw CPU data (checks device and dtype). Only the CPU backend and tests use it.
  template <class T> T* data_ptr() const;
  void* raw_data() const;  // CPU only, no dtype check
  // The single value of a one-element tensor, converted to T (copies from device).
  template <class T> T item() const;
  // One element by multi-index, converted to T (for tests; copies from device).
  template <class T> T at(IntList index) const;
  // All elements in row-major order, converted to T (copies from device).
  template <class T> std::vector<T> to_vector() const;

  // ---- autograd -------------------------------------------------------
  bool requires_grad() const;
  Tensor& requires_grad_(bool r = true);
  // The accumulated gradient (undefined until a backward reaches this leaf).
  Tensor grad() const;
  Tensor& mutable_grad();
  void set_grad(const Tensor& g);
  bool is_leaf() const;
  std::shared_ptr<autograd::Node> grad_fn() const;
  uint32_t output_nr() const;
  // Runs backpropagation from this tensor. `gradient` may be omitted for a scalar.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false, bool create_graph = false) const;
  Tensor detach() const;     // same data, no history
  Tensor& detach_();
  void retain_grad() const;  // keep .grad() of a non-leaf
  // Calls hook with the gradient of this tensor during backward; a defined
  // return value replaces the gradient.
  void register_hook(TensorHook hook) const;
  uint32_t version() const;

  // ---- conversion -----------------------------------------------------
  Tensor to(DType t, bool copy = false) const;
  // On another device (PyTorch's to(device, non_blocking, copy)): a copy
  // through the device runtime, differentiable. non_blocking: asynchronous
  // when the host side is pinned memory (see docs/devices.md).
  Tensor to(Device d, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const { return self("Tensor::cpu").to(kCPU); }
  // A copy in page-locked host memory, which devices copy from asynchronously
  // (an Error when no device has pinned memory).
  Tensor pin_memory() const;
  bool is_pinned() const;
  Tensor clone() const;
  Tensor contiguous() const;

  // ---- views (no copy) ------------------------------------------------
  Tensor view(IntList sizes) const;
  Tensor reshape(IntList sizes) const;
  Tensor permute(IntList dims) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor t() const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const { return self("Tensor::operator[]").select(0, index); }
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  Tensor expand(IntList sizes) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntList sizes) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor view_as(const Tensor& other) const { return self("Tensor::view_as").view(other.sizes()); }

  // ---- elementwise (nabla/ops/elementwise.h) -------------------------
  // Every op that takes a tensor first and is a method in PyTorch is one here
  // too (tests/api/tensor_methods_test.cpp checks it against PyTorch's list).
  // unary math
  Tensor neg() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor reciprocal() const;
  Tensor square() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor erf() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  // binary arithmetic: the other operand is a tensor or a number (PyTorch's
  // rules for Python numbers decide the result dtype)
  Tensor add(const Tensor& o) const;
  Tensor add(const Scalar& o) const;
  Tensor add(const Tensor& o, const Scalar& alpha) const;  // self + alpha * o
  Tensor add(const Scalar& o, const Scalar& alpha) const;
  Tensor sub(const Tensor& o) const;
  Tensor sub(const Scalar& o) const;
  Tensor sub(const Tensor& o, const Scalar& alpha) const;  // self - alpha * o
  Tensor sub(const Scalar& o, const Scalar& alpha) const;
  Tensor mul(const Tensor& o) const;
  Tensor mul(const Scalar& o) const;
  // rounding_mode: "" (true division), "floor" or "trunc"
  Tensor div(const Tensor& o, const std::string& rounding_mode = "") const;
  Tensor div(const Scalar& o, const std::string& rounding_mode = "") const;
  Tensor floor_divide(const Tensor& o) const;
  Tensor floor_divide(const Scalar& o) const;
  Tensor remainder(const Tensor& o) const;
  Tensor remainder(const Scalar& o) const;
  Tensor maximum(const Tensor& o) const;
  Tensor maximum(const Scalar& o) const;
  Tensor minimum(const Tensor& o) const;
  Tensor minimum(const Scalar& o) const;
  // comparisons and logic (bool results)
  Tensor eq(const Tensor& o) const;
  Tensor eq(const Scalar& o) const;
  Tensor ne(const Tensor& o) const;
  Tensor ne(const Scalar& o) const;
  Tensor lt(const Tensor& o) const;
  Tensor lt(const Scalar& o) const;
  Tensor le(const Tensor& o) const;
  Tensor le(const Scalar& o) const;
  Tensor gt(const Tensor& o) const;
  Tensor gt(const Scalar& o) const;
  Tensor ge(const Tensor& o) const;
  Tensor ge(const Scalar& o) const;
  Tensor logical_and(const Tensor& o) const;
  Tensor logical_and(const Scalar& o) const;
  Tensor logical_or(const Tensor& o) const;
  Tensor logical_or(const Scalar& o) const;
  Tensor logical_xor(const Tensor& o) const;
  Tensor logical_xor(const Scalar& o) const;
  Tensor logical_not() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  // PyTorch's Tensor.where: where(condition, self, other)
  Tensor where(const Tensor& condition, const Tensor& other) const;
  Tensor where(const Tensor& condition, const Scalar& other) const;

  // ---- closeness (nabla/ops/closeness.h) ------------------------------
  bool equal(const Tensor& o) const;
  Tensor isclose(const Tensor& o, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;
  bool allclose(const Tensor& o, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;

  // ---- indexing, joining and sorting (nabla/ops/indexing.h) -----------
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor take(const Tensor& index) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntList split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntList split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  Tensor repeat(IntList repeats) const;
  Tensor tile(IntList reps) const;
  Tensor flip(IntList dims) const;
  Tensor roll(IntList shifts, IntList dims = {}) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  std::pair<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false, bool stable = false) const;
  std::pair<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;

  // ---- in place (bump the version counter) ----------------------------
  Tensor& add_(const Tensor& o);
  Tensor& add_(const Scalar& o);
  Tensor& sub_(const Tensor& o);
  Tensor& sub_(const Scalar& o);
  Tensor& mul_(const Tensor& o);
  Tensor& mul_(const Scalar& o);
  Tensor& div_(const Tensor& o);
  Tensor& div_(const Scalar& o);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& zero_();
  Tensor& fill_(const Scalar& value);
  Tensor& copy_(const Tensor& src);
  // PyTorch's x[mask] = value: the mask broadcasts to this tensor's shape.
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator+=(const Scalar& o) { return add_(o); }
  Tensor& operator-=(const Scalar& o) { return sub_(o); }
  Tensor& operator*=(const Scalar& o) { return mul_(o); }
  Tensor& operator/=(const Scalar& o) { return div_(o); }

  // ---- reductions (nabla/ops/reduction.h) -----------------------------
  Tensor sum() const;
  Tensor sum(IntList dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntList dims, bool keepdim = false) const;
  Tensor prod(IntList dims = {}, bool keepdim = false) const;
  Tensor amax(IntList dims = {}, bool keepdim = false) const;
  Tensor amin(IntList dims = {}, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;  // (values, indices)
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  // var/std: PyTorch 1.13's (dim, unbiased, keepdim), or an explicit
  // Correction{n} (divide by N - n); a plain integer there does not compile.
  Tensor var(IntList dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor var(IntList dims, Correction correction, bool keepdim = false) const;
  template <class Int>
    requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
  Tensor var(IntList dims, Int correction, bool keepdim = false) const = delete;  // write Correction{n}
  Tensor std(IntList dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor std(IntList dims, Correction correction, bool keepdim = false) const;
  template <class Int>
    requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
  Tensor std(IntList dims, Int correction, bool keepdim = false) const = delete;  // write Correction{n}
  Tensor norm(double p = 2.0, IntList dims = {}, bool keepdim = false) const;
  Tensor logsumexp(IntList dims, bool keepdim = false) const;
  Tensor all(IntList dims = {}, bool keepdim = false) const;
  Tensor any(IntList dims = {}, bool keepdim = false) const;
  Tensor cumsum(int64_t dim) const;
  Tensor cumprod(int64_t dim) const;

  // ---- linear algebra (nabla/ops/linalg.h) ----------------------------
  Tensor mm(const Tensor& o) const;
  Tensor bmm(const Tensor& o) const;
  Tensor matmul(const Tensor& o) const;
  // beta * self + alpha * (mat1 @ mat2)
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor outer(const Tensor& o) const;
  Tensor dot(const Tensor& o) const;

  // ---- neural-network functions and random draws ----------------------
  Tensor softmax(int64_t dim) const;      // nabla/ops/nn_functional.h
  Tensor log_softmax(int64_t dim) const;
  Tensor bernoulli() const;               // nabla/ops/factory.h: draws with probabilities self

 private:
  // The one way methods reach the impl: an undefined tensor (default-constructed
  // or moved-from) is a nabla::Error naming `method`, never a null dereference.
  // The branch is predicted; the message is built out of line.
  TensorImpl* checked(const char* method) const {
    if (!impl_) [[unlikely]] fail_undefined(method);
    return impl_.get();
  }
  // *this, checked: for the methods that hand the tensor to an op, so that the
  // error names the method called rather than what the op reads first.
  const Tensor& self(const char* method) const {
    checked(method);
    return *this;
  }
  [[noreturn]] static void fail_undefined(const char* method);
  Ref<TensorImpl> impl_;
};

// Autograd state of a tensor; absent for plain tensors (see nabla/autograd).
struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;       // null for leaves
  uint32_t output_nr = 0;                        // which output of grad_fn
  std::shared_ptr<autograd::Node> grad_accumulator;  // leaves, created lazily
  std::vector<TensorHook> hooks;                 // leaves' hooks
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// Makes a fresh contiguous tensor (uninitialized memory).
Tensor make_empty(IntList sizes, DType dtype, Device device, const char* api = "empty");
// Wraps an impl.
Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset);

// ---- template definitions ------------------------------------------------

template <class T>
T* Tensor::data_ptr() const {
  checked("Tensor::data_ptr");
  NABLA_CHECK(dtype() == dtype_v<T>, "Tensor::data_ptr: tensor has dtype ", dtype(), " but ",
              dtype_name(dtype_v<T>), " was requested");
  return static_cast<T*>(raw_data());
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  Tensor c = self("Tensor::to_vector").to(kCPU).contiguous();
  std::vector<T> out(static_cast<std::size_t>(c.numel()));
  visit_dtype(c.dtype(), [&]<class S>() {
    const S* p = static_cast<const S*>(c.raw_data());
    for (std::size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) out[i] = static_cast<float>(p[i]) != 0.0f;
      else if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>)
        out[i] = static_cast<T>(static_cast<float>(p[i]));
      else out[i] = static_cast<T>(p[i]);
    }
  });
  return out;
}

template <class T>
T Tensor::item() const {
  checked("Tensor::item");
  NABLA_CHECK(numel() == 1, "Tensor::item: the tensor has ", numel(), " elements (shape ", sizes(),
              "), expected exactly one");
  return to_vector<T>()[0];
}

template <class T>
T Tensor::at(IntList index) const {
  checked("Tensor::at");
  NABLA_CHECK(static_cast<int64_t>(index.size()) == dim(), "Tensor::at: got ", index.size(),
              " indices for a tensor of ", dim(), " dims");
  Tensor v = *this;
  for (std::size_t i = 0; i < index.size(); ++i) v = v.select(0, index[i]);
  return v.item<T>();
}

}  // namespace nabla
