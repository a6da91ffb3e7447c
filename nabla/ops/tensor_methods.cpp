// Tensor's methods: one-line wrappers over the op functions.
#include <cstring>

#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {

Tensor Tensor::to(DType t, bool copy) const {
  if (t == dtype()) return copy ? nabla::clone(*this) : *this;
  return cast(*this, t);
}
Tensor Tensor::to(Device d, bool copy) const {
  if (d == device()) return copy ? nabla::clone(*this) : *this;
  fail("Tensor::to: copying from ", device(), " to ", d, " is not available in this build of nabla (only cpu)");
}
Tensor Tensor::clone() const { return nabla::clone(*this); }
Tensor Tensor::contiguous() const { return nabla::contiguous(*this); }

Tensor Tensor::view(IntList s) const { return nabla::view(*this, s); }
Tensor Tensor::reshape(IntList s) const { return nabla::reshape(*this, s); }
Tensor Tensor::permute(IntList d) const { return nabla::permute(*this, d); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return nabla::transpose(*this, a, b); }
Tensor Tensor::t() const {
  NABLA_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dims, got ", dim(), " (shape ", sizes(),
              "); use transpose(d0, d1)");
  return dim() < 2 ? *this : nabla::transpose(*this, 0, 1);
}
Tensor Tensor::slice(int64_t d, std::optional<int64_t> b, std::optional<int64_t> e, int64_t s) const {
  return nabla::slice(*this, d, b, e, s);
}
Tensor Tensor::narrow(int64_t d, int64_t b, int64_t n) const { return nabla::narrow(*this, d, b, n); }
Tensor Tensor::select(int64_t d, int64_t i) const { return nabla::select(*this, d, i); }
Tensor Tensor::expand(IntList s) const { return nabla::expand(*this, s); }
Tensor Tensor::expand_as(const Tensor& o) const { return nabla::expand(*this, o.sizes()); }
Tensor Tensor::squeeze() const { return nabla::squeeze(*this); }
Tensor Tensor::squeeze(int64_t d) const { return nabla::squeeze(*this, d); }
Tensor Tensor::unsqueeze(int64_t d) const { return nabla::unsqueeze(*this, d); }
Tensor Tensor::flatten(int64_t a, int64_t b) const { return nabla::flatten(*this, a, b); }
Tensor Tensor::unflatten(int64_t d, IntList s) const { return nabla::unflatten(*this, d, s); }
Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const { return nabla::unfold(*this, d, size, step); }

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& i : indices) {
    if (i.kind == TensorIndex::Integer || i.kind == TensorIndex::SliceKind) consumed++;
    if (i.kind == TensorIndex::EllipsisKind) ellipses++;
  }
  NABLA_CHECK(ellipses <= 1, "Tensor::index: at most one Ellipsis is allowed");
  NABLA_CHECK(consumed <= dim(), "Tensor::index: too many indices (", consumed, ") for a tensor of ", dim(), " dims");
  Tensor r = *this;
  int64_t d = 0;
  for (const auto& i : indices) {
    switch (i.kind) {
      case TensorIndex::Integer: r = nabla::select(r, d, i.integer); break;
      case TensorIndex::SliceKind: r = nabla::slice(r, d, i.slice.start, i.slice.stop, i.slice.step); d++; break;
      case TensorIndex::NoneKind: r = nabla::unsqueeze(r, d); d++; break;
      case TensorIndex::EllipsisKind: d += dim() - consumed; break;
    }
  }
  return r;
}

Tensor Tensor::neg() const { return nabla::neg(*this); }
Tensor Tensor::abs() const { return nabla::abs(*this); }
Tensor Tensor::exp() const { return nabla::exp(*this); }
Tensor Tensor::log() const { return nabla::log(*this); }
Tensor Tensor::sqrt() const { return nabla::sqrt(*this); }
Tensor Tensor::sigmoid() const { return nabla::sigmoid(*this); }
Tensor Tensor::tanh() const { return nabla::tanh(*this); }
Tensor Tensor::relu() const { return nabla::relu(*this); }
Tensor Tensor::square() const { return nabla::square(*this); }
Tensor Tensor::pow(const Scalar& e) const { return nabla::pow(*this, e); }
Tensor Tensor::pow(const Tensor& e) const { return nabla::pow(*this, e); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return nabla::clamp(*this, lo, hi); }
Tensor Tensor::clamp_min(const Scalar& lo) const { return nabla::clamp_min(*this, lo); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return nabla::clamp_max(*this, hi); }
Tensor Tensor::add(const Tensor& o) const { return nabla::add(*this, o); }
Tensor Tensor::sub(const Tensor& o) const { return nabla::sub(*this, o); }
Tensor Tensor::mul(const Tensor& o) const { return nabla::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return nabla::div(*this, o); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& v) const { return nabla::masked_fill(*this, mask, v); }
Tensor Tensor::gather(int64_t d, const Tensor& index) const { return nabla::gather(*this, d, index); }
Tensor Tensor::index_select(int64_t d, const Tensor& index) const { return nabla::index_select(*this, d, index); }
Tensor Tensor::flip(IntList dims) const { return nabla::flip(*this, dims); }
std::pair<Tensor, Tensor> Tensor::sort(int64_t d, bool descending) const { return nabla::sort(*this, d, descending); }
std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t d, bool largest, bool sorted) const {
  return nabla::topk(*this, k, d, largest, sorted);
}

extern const OpDef clamp_op;
Tensor& Tensor::clamp_(std::optional<Scalar> lo, std::optional<Scalar> hi) {
  NABLA_CHECK(lo || hi, "clamp_: at least one of min and max must be given");
  const Tensor ins[1] = {*this};
  return call_inplace(clamp_op, *this, ins, {lo ? AttrValue(*lo) : AttrValue(), hi ? AttrValue(*hi) : AttrValue()});
}
Tensor& Tensor::fill_(const Scalar& v) { return copy_(scalar_tensor_like(v, *this)); }
Tensor& Tensor::zero_() { return fill_(0); }

Tensor Tensor::sum() const { return nabla::sum(*this); }
Tensor Tensor::sum(IntList d, bool k) const { return nabla::sum(*this, d, k); }
Tensor Tensor::mean() const { return nabla::mean(*this); }
Tensor Tensor::mean(IntList d, bool k) const { return nabla::mean(*this, d, k); }
Tensor Tensor::max() const { return nabla::max(*this); }
Tensor Tensor::min() const { return nabla::min(*this); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool k) const { return nabla::argmax(*this, d, k); }
Tensor Tensor::mm(const Tensor& o) const { return nabla::mm(*this, o); }
Tensor Tensor::matmul(const Tensor& o) const { return nabla::matmul(*this, o); }

}  // namespace nabla
