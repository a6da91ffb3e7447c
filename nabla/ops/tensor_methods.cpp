// Tensor's methods: one-line wrappers over the op functions.
#include <cstring>

#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {

Tensor Tensor::to(DType t, bool copy) const {
  if (t == checked("Tensor::to")->dtype) return copy ? nabla::clone(*this) : *this;
  return cast(*this, t);
}
Tensor Tensor::to(Device d, bool copy) const {
  if (d == checked("Tensor::to")->device) return copy ? nabla::clone(*this) : *this;
  fail("Tensor::to: copying from ", device(), " to ", d, " is not available in this build of nabla (only cpu)");
}
Tensor Tensor::clone() const { return nabla::clone(self("Tensor::clone")); }
Tensor Tensor::contiguous() const { return nabla::contiguous(self("Tensor::contiguous")); }

Tensor Tensor::view(IntList s) const { return nabla::view(self("Tensor::view"), s); }
Tensor Tensor::reshape(IntList s) const { return nabla::reshape(self("Tensor::reshape"), s); }
Tensor Tensor::permute(IntList d) const { return nabla::permute(self("Tensor::permute"), d); }
Tensor Tensor::transpose(int64_t a, int64_t b) const { return nabla::transpose(self("Tensor::transpose"), a, b); }
Tensor Tensor::t() const {
  checked("Tensor::t");
  NABLA_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dims, got ", dim(), " (shape ", sizes(),
              "); use transpose(d0, d1)");
  return dim() < 2 ? *this : nabla::transpose(*this, 0, 1);
}
Tensor Tensor::slice(int64_t d, std::optional<int64_t> b, std::optional<int64_t> e, int64_t s) const {
  return nabla::slice(self("Tensor::slice"), d, b, e, s);
}
Tensor Tensor::narrow(int64_t d, int64_t b, int64_t n) const { return nabla::narrow(self("Tensor::narrow"), d, b, n); }
Tensor Tensor::select(int64_t d, int64_t i) const { return nabla::select(self("Tensor::select"), d, i); }
Tensor Tensor::expand(IntList s) const { return nabla::expand(self("Tensor::expand"), s); }
Tensor Tensor::expand_as(const Tensor& o) const {
  return nabla::expand(self("Tensor::expand_as"), o.self("Tensor::expand_as").sizes());
}
Tensor Tensor::squeeze() const { return nabla::squeeze(self("Tensor::squeeze")); }
Tensor Tensor::squeeze(int64_t d) const { return nabla::squeeze(self("Tensor::squeeze"), d); }
Tensor Tensor::unsqueeze(int64_t d) const { return nabla::unsqueeze(self("Tensor::unsqueeze"), d); }
Tensor Tensor::flatten(int64_t a, int64_t b) const { return nabla::flatten(self("Tensor::flatten"), a, b); }
Tensor Tensor::unflatten(int64_t d, IntList s) const { return nabla::unflatten(self("Tensor::unflatten"), d, s); }
Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const { return nabla::unfold(self("Tensor::unfold"), d, size, step); }

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return self("Tensor::index").index(std::vector<TensorIndex>(indices));
}
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  checked("Tensor::index");
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

Tensor Tensor::neg() const { return nabla::neg(self("Tensor::neg")); }
Tensor Tensor::abs() const { return nabla::abs(self("Tensor::abs")); }
Tensor Tensor::exp() const { return nabla::exp(self("Tensor::exp")); }
Tensor Tensor::log() const { return nabla::log(self("Tensor::log")); }
Tensor Tensor::sqrt() const { return nabla::sqrt(self("Tensor::sqrt")); }
Tensor Tensor::sigmoid() const { return nabla::sigmoid(self("Tensor::sigmoid")); }
Tensor Tensor::tanh() const { return nabla::tanh(self("Tensor::tanh")); }
Tensor Tensor::relu() const { return nabla::relu(self("Tensor::relu")); }
Tensor Tensor::square() const { return nabla::square(self("Tensor::square")); }
Tensor Tensor::pow(const Scalar& e) const { return nabla::pow(self("Tensor::pow"), e); }
Tensor Tensor::pow(const Tensor& e) const { return nabla::pow(self("Tensor::pow"), e); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return nabla::clamp(self("Tensor::clamp"), lo, hi); }
Tensor Tensor::clamp_min(const Scalar& lo) const { return nabla::clamp_min(self("Tensor::clamp_min"), lo); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return nabla::clamp_max(self("Tensor::clamp_max"), hi); }
Tensor Tensor::add(const Tensor& o) const { return nabla::add(self("Tensor::add"), o); }
Tensor Tensor::sub(const Tensor& o) const { return nabla::sub(self("Tensor::sub"), o); }
Tensor Tensor::mul(const Tensor& o) const { return nabla::mul(self("Tensor::mul"), o); }
Tensor Tensor::div(const Tensor& o) const { return nabla::div(self("Tensor::div"), o); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& v) const { return nabla::masked_fill(self("Tensor::masked_fill"), mask, v); }
Tensor Tensor::gather(int64_t d, const Tensor& index) const { return nabla::gather(self("Tensor::gather"), d, index); }
Tensor Tensor::index_select(int64_t d, const Tensor& index) const { return nabla::index_select(self("Tensor::index_select"), d, index); }
Tensor Tensor::flip(IntList dims) const { return nabla::flip(self("Tensor::flip"), dims); }
std::pair<Tensor, Tensor> Tensor::sort(int64_t d, bool descending) const { return nabla::sort(self("Tensor::sort"), d, descending); }
std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t d, bool largest, bool sorted) const {
  return nabla::topk(self("Tensor::topk"), k, d, largest, sorted);
}

extern const OpDef clamp_op;
Tensor& Tensor::clamp_(std::optional<Scalar> lo, std::optional<Scalar> hi) {
  checked("Tensor::clamp_");
  NABLA_CHECK(lo || hi, "clamp_: at least one of min and max must be given");
  const Tensor ins[1] = {*this};
  return call_inplace(clamp_op, *this, ins, {lo ? AttrValue(*lo) : AttrValue(), hi ? AttrValue(*hi) : AttrValue()});
}
Tensor& Tensor::fill_(const Scalar& v) { return copy_(scalar_tensor_like(v, self("Tensor::fill_"))); }
Tensor& Tensor::zero_() {
  checked("Tensor::zero_");
  return fill_(0);
}

Tensor Tensor::sum() const { return nabla::sum(self("Tensor::sum")); }
Tensor Tensor::sum(IntList d, bool k) const { return nabla::sum(self("Tensor::sum"), d, k); }
Tensor Tensor::mean() const { return nabla::mean(self("Tensor::mean")); }
Tensor Tensor::mean(IntList d, bool k) const { return nabla::mean(self("Tensor::mean"), d, k); }
Tensor Tensor::max() const { return nabla::max(self("Tensor::max")); }
Tensor Tensor::min() const { return nabla::min(self("Tensor::min")); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool k) const { return nabla::argmax(self("Tensor::argmax"), d, k); }
Tensor Tensor::mm(const Tensor& o) const { return nabla::mm(self("Tensor::mm"), o); }
Tensor Tensor::matmul(const Tensor& o) const { return nabla::matmul(self("Tensor::matmul"), o); }

}  // namespace nabla
