// Tensor's methods: one-line wrappers over the op functions.
#include <cstring>

#include "nabla/core/user_op.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {

Tensor Tensor::to(DType t, bool copy) const {
  if (t == checked("Tensor::to")->dtype) return copy ? nabla::clone(*this) : *this;
  return cast(*this, t);
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

// The function forms of t, detach, numel and is_floating_point (PyTorch has both).
Tensor t(const Tensor& x) try {
  return x.t();
} catch (const Error&) {
  detail::rethrow_naming("t");
}
Tensor detach(const Tensor& x) try {
  return x.detach();
} catch (const Error&) {
  detail::rethrow_naming("detach");
}
int64_t numel(const Tensor& x) try {
  return x.numel();
} catch (const Error&) {
  detail::rethrow_naming("numel");
}
bool is_floating_point(const Tensor& x) try {
  return x.is_floating_point();
} catch (const Error&) {
  detail::rethrow_naming("is_floating_point");
}

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

// ---- elementwise ----------------------------------------------------------
Tensor Tensor::neg() const { return nabla::neg(self("Tensor::neg")); }
Tensor Tensor::abs() const { return nabla::abs(self("Tensor::abs")); }
Tensor Tensor::sign() const { return nabla::sign(self("Tensor::sign")); }
Tensor Tensor::exp() const { return nabla::exp(self("Tensor::exp")); }
Tensor Tensor::exp2() const { return nabla::exp2(self("Tensor::exp2")); }
Tensor Tensor::log() const { return nabla::log(self("Tensor::log")); }
Tensor Tensor::log2() const { return nabla::log2(self("Tensor::log2")); }
Tensor Tensor::log1p() const { return nabla::log1p(self("Tensor::log1p")); }
Tensor Tensor::expm1() const { return nabla::expm1(self("Tensor::expm1")); }
Tensor Tensor::sqrt() const { return nabla::sqrt(self("Tensor::sqrt")); }
Tensor Tensor::rsqrt() const { return nabla::rsqrt(self("Tensor::rsqrt")); }
Tensor Tensor::reciprocal() const { return nabla::reciprocal(self("Tensor::reciprocal")); }
Tensor Tensor::square() const { return nabla::square(self("Tensor::square")); }
Tensor Tensor::sin() const { return nabla::sin(self("Tensor::sin")); }
Tensor Tensor::cos() const { return nabla::cos(self("Tensor::cos")); }
Tensor Tensor::tan() const { return nabla::tan(self("Tensor::tan")); }
Tensor Tensor::tanh() const { return nabla::tanh(self("Tensor::tanh")); }
Tensor Tensor::sigmoid() const { return nabla::sigmoid(self("Tensor::sigmoid")); }
Tensor Tensor::relu() const { return nabla::relu(self("Tensor::relu")); }
Tensor Tensor::erf() const { return nabla::erf(self("Tensor::erf")); }
Tensor Tensor::floor() const { return nabla::floor(self("Tensor::floor")); }
Tensor Tensor::ceil() const { return nabla::ceil(self("Tensor::ceil")); }
Tensor Tensor::round() const { return nabla::round(self("Tensor::round")); }
Tensor Tensor::trunc() const { return nabla::trunc(self("Tensor::trunc")); }
Tensor Tensor::pow(const Scalar& e) const { return nabla::pow(self("Tensor::pow"), e); }
Tensor Tensor::pow(const Tensor& e) const { return nabla::pow(self("Tensor::pow"), e); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const { return nabla::clamp(self("Tensor::clamp"), lo, hi); }
Tensor Tensor::clamp_min(const Scalar& lo) const { return nabla::clamp_min(self("Tensor::clamp_min"), lo); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return nabla::clamp_max(self("Tensor::clamp_max"), hi); }
Tensor Tensor::add(const Tensor& o) const { return nabla::add(self("Tensor::add"), o); }
Tensor Tensor::add(const Scalar& o) const { return nabla::add(self("Tensor::add"), o); }
Tensor Tensor::sub(const Tensor& o) const { return nabla::sub(self("Tensor::sub"), o); }
Tensor Tensor::sub(const Scalar& o) const { return nabla::sub(self("Tensor::sub"), o); }
Tensor Tensor::mul(const Tensor& o) const { return nabla::mul(self("Tensor::mul"), o); }
Tensor Tensor::mul(const Scalar& o) const { return nabla::mul(self("Tensor::mul"), o); }
Tensor Tensor::floor_divide(const Tensor& o) const { return nabla::floor_divide(self("Tensor::floor_divide"), o); }
Tensor Tensor::floor_divide(const Scalar& o) const { return nabla::floor_divide(self("Tensor::floor_divide"), o); }
Tensor Tensor::remainder(const Tensor& o) const { return nabla::remainder(self("Tensor::remainder"), o); }
Tensor Tensor::remainder(const Scalar& o) const { return nabla::remainder(self("Tensor::remainder"), o); }
Tensor Tensor::maximum(const Tensor& o) const { return nabla::maximum(self("Tensor::maximum"), o); }
Tensor Tensor::maximum(const Scalar& o) const { return nabla::maximum(self("Tensor::maximum"), o); }
Tensor Tensor::minimum(const Tensor& o) const { return nabla::minimum(self("Tensor::minimum"), o); }
Tensor Tensor::minimum(const Scalar& o) const { return nabla::minimum(self("Tensor::minimum"), o); }
Tensor Tensor::eq(const Tensor& o) const { return nabla::eq(self("Tensor::eq"), o); }
Tensor Tensor::eq(const Scalar& o) const { return nabla::eq(self("Tensor::eq"), o); }
Tensor Tensor::ne(const Tensor& o) const { return nabla::ne(self("Tensor::ne"), o); }
Tensor Tensor::ne(const Scalar& o) const { return nabla::ne(self("Tensor::ne"), o); }
Tensor Tensor::lt(const Tensor& o) const { return nabla::lt(self("Tensor::lt"), o); }
Tensor Tensor::lt(const Scalar& o) const { return nabla::lt(self("Tensor::lt"), o); }
Tensor Tensor::le(const Tensor& o) const { return nabla::le(self("Tensor::le"), o); }
Tensor Tensor::le(const Scalar& o) const { return nabla::le(self("Tensor::le"), o); }
Tensor Tensor::gt(const Tensor& o) const { return nabla::gt(self("Tensor::gt"), o); }
Tensor Tensor::gt(const Scalar& o) const { return nabla::gt(self("Tensor::gt"), o); }
Tensor Tensor::ge(const Tensor& o) const { return nabla::ge(self("Tensor::ge"), o); }
Tensor Tensor::ge(const Scalar& o) const { return nabla::ge(self("Tensor::ge"), o); }
Tensor Tensor::logical_and(const Tensor& o) const { return nabla::logical_and(self("Tensor::logical_and"), o); }
Tensor Tensor::logical_and(const Scalar& o) const { return nabla::logical_and(self("Tensor::logical_and"), o); }
Tensor Tensor::logical_or(const Tensor& o) const { return nabla::logical_or(self("Tensor::logical_or"), o); }
Tensor Tensor::logical_or(const Scalar& o) const { return nabla::logical_or(self("Tensor::logical_or"), o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return nabla::logical_xor(self("Tensor::logical_xor"), o); }
Tensor Tensor::logical_xor(const Scalar& o) const { return nabla::logical_xor(self("Tensor::logical_xor"), o); }
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return nabla::add(self("Tensor::add"), o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const { return nabla::add(self("Tensor::add"), o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return nabla::sub(self("Tensor::sub"), o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const { return nabla::sub(self("Tensor::sub"), o, alpha); }
Tensor Tensor::div(const Tensor& o, const std::string& mode) const { return nabla::div(self("Tensor::div"), o, mode); }
Tensor Tensor::div(const Scalar& o, const std::string& mode) const { return nabla::div(self("Tensor::div"), o, mode); }
Tensor Tensor::logical_not() const { return nabla::logical_not(self("Tensor::logical_not")); }
Tensor Tensor::isnan() const { return nabla::isnan(self("Tensor::isnan")); }
Tensor Tensor::isinf() const { return nabla::isinf(self("Tensor::isinf")); }
Tensor Tensor::isfinite() const { return nabla::isfinite(self("Tensor::isfinite")); }
Tensor Tensor::where(const Tensor& c, const Tensor& o) const { return nabla::where(c, self("Tensor::where"), o); }
Tensor Tensor::where(const Tensor& c, const Scalar& o) const { return nabla::where(c, self("Tensor::where"), o); }

// ---- closeness ----------------------------------------------------------------
bool Tensor::equal(const Tensor& o) const { return nabla::equal(self("Tensor::equal"), o); }
Tensor Tensor::isclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return nabla::isclose(self("Tensor::isclose"), o, rtol, atol, equal_nan);
}
bool Tensor::allclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return nabla::allclose(self("Tensor::allclose"), o, rtol, atol, equal_nan);
}

// ---- indexing, joining and sorting --------------------------------------------
Tensor Tensor::gather(int64_t d, const Tensor& index) const { return nabla::gather(self("Tensor::gather"), d, index); }
Tensor Tensor::scatter(int64_t d, const Tensor& index, const Tensor& src) const {
  return nabla::scatter(self("Tensor::scatter"), d, index, src);
}
Tensor Tensor::scatter(int64_t d, const Tensor& index, const Scalar& value) const {
  return nabla::scatter(self("Tensor::scatter"), d, index, value);
}
Tensor Tensor::scatter_add(int64_t d, const Tensor& index, const Tensor& src) const {
  return nabla::scatter_add(self("Tensor::scatter_add"), d, index, src);
}
Tensor Tensor::index_select(int64_t d, const Tensor& index) const { return nabla::index_select(self("Tensor::index_select"), d, index); }
Tensor Tensor::index_add(int64_t d, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return nabla::index_add(self("Tensor::index_add"), d, index, source, alpha);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& v) const { return nabla::masked_fill(self("Tensor::masked_fill"), mask, v); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& v) const { return nabla::masked_fill(self("Tensor::masked_fill"), mask, v); }
Tensor Tensor::masked_select(const Tensor& mask) const { return nabla::masked_select(self("Tensor::masked_select"), mask); }
Tensor Tensor::take(const Tensor& index) const { return nabla::take(self("Tensor::take"), index); }
std::vector<Tensor> Tensor::split(int64_t size, int64_t d) const { return nabla::split(self("Tensor::split"), size, d); }
std::vector<Tensor> Tensor::split(IntList sizes, int64_t d) const { return nabla::split(self("Tensor::split"), sizes, d); }
std::vector<Tensor> Tensor::split_with_sizes(IntList sizes, int64_t d) const {
  return nabla::split_with_sizes(self("Tensor::split_with_sizes"), sizes, d);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const { return nabla::chunk(self("Tensor::chunk"), chunks, d); }
Tensor Tensor::repeat(IntList repeats) const { return nabla::repeat(self("Tensor::repeat"), repeats); }
Tensor Tensor::tile(IntList reps) const { return nabla::tile(self("Tensor::tile"), reps); }
Tensor Tensor::flip(IntList dims) const { return nabla::flip(self("Tensor::flip"), dims); }
Tensor Tensor::roll(IntList shifts, IntList dims) const { return nabla::roll(self("Tensor::roll"), shifts, dims); }
Tensor Tensor::tril(int64_t diagonal) const { return nabla::tril(self("Tensor::tril"), diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return nabla::triu(self("Tensor::triu"), diagonal); }
std::pair<Tensor, Tensor> Tensor::sort(int64_t d, bool descending, bool stable) const {
  return nabla::sort(self("Tensor::sort"), d, descending, stable);
}
Tensor Tensor::argsort(int64_t d, bool descending, bool stable) const {
  return nabla::argsort(self("Tensor::argsort"), d, descending, stable);
}
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
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& v) {
  Tensor filled = nabla::masked_fill(self("Tensor::masked_fill_"), mask, v);
  NABLA_CHECK(filled.sizes() == sizes(), "masked_fill_: the mask's shape ", mask.sizes(),
              " does not broadcast to the tensor's shape ", sizes(), " (in place, the result keeps that shape)");
  return copy_(filled);
}
Tensor& Tensor::fill_(const Scalar& v) { return copy_(scalar_tensor_like(v, self("Tensor::fill_"))); }
Tensor& Tensor::zero_() {
  checked("Tensor::zero_");
  return fill_(0);
}

// ---- reductions -------------------------------------------------------------
Tensor Tensor::sum() const { return nabla::sum(self("Tensor::sum")); }
Tensor Tensor::sum(IntList d, bool k) const { return nabla::sum(self("Tensor::sum"), d, k); }
Tensor Tensor::mean() const { return nabla::mean(self("Tensor::mean")); }
Tensor Tensor::mean(IntList d, bool k) const { return nabla::mean(self("Tensor::mean"), d, k); }
Tensor Tensor::prod(IntList d, bool k) const { return nabla::prod(self("Tensor::prod"), d, k); }
Tensor Tensor::amax(IntList d, bool k) const { return nabla::amax(self("Tensor::amax"), d, k); }
Tensor Tensor::amin(IntList d, bool k) const { return nabla::amin(self("Tensor::amin"), d, k); }
Tensor Tensor::max() const { return nabla::max(self("Tensor::max")); }
Tensor Tensor::min() const { return nabla::min(self("Tensor::min")); }
std::pair<Tensor, Tensor> Tensor::max(int64_t d, bool k) const { return nabla::max(self("Tensor::max"), d, k); }
std::pair<Tensor, Tensor> Tensor::min(int64_t d, bool k) const { return nabla::min(self("Tensor::min"), d, k); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool k) const { return nabla::argmax(self("Tensor::argmax"), d, k); }
Tensor Tensor::argmin(std::optional<int64_t> d, bool k) const { return nabla::argmin(self("Tensor::argmin"), d, k); }
Tensor Tensor::var(IntList d, bool unbiased, bool k) const { return nabla::var(self("Tensor::var"), d, unbiased, k); }
Tensor Tensor::var(IntList d, Correction c, bool k) const { return nabla::var(self("Tensor::var"), d, c, k); }
Tensor Tensor::std(IntList d, bool unbiased, bool k) const { return nabla::std(self("Tensor::std"), d, unbiased, k); }
Tensor Tensor::std(IntList d, Correction c, bool k) const { return nabla::std(self("Tensor::std"), d, c, k); }
Tensor Tensor::norm(double p, IntList d, bool k) const { return nabla::norm(self("Tensor::norm"), p, d, k); }
Tensor Tensor::logsumexp(IntList d, bool k) const { return nabla::logsumexp(self("Tensor::logsumexp"), d, k); }
Tensor Tensor::all(IntList d, bool k) const { return nabla::all(self("Tensor::all"), d, k); }
Tensor Tensor::any(IntList d, bool k) const { return nabla::any(self("Tensor::any"), d, k); }
Tensor Tensor::cumsum(int64_t d) const { return nabla::cumsum(self("Tensor::cumsum"), d); }
Tensor Tensor::cumprod(int64_t d) const { return nabla::cumprod(self("Tensor::cumprod"), d); }

// ---- linear algebra -------------------------------------------------------------
Tensor Tensor::mm(const Tensor& o) const { return nabla::mm(self("Tensor::mm"), o); }
Tensor Tensor::bmm(const Tensor& o) const { return nabla::bmm(self("Tensor::bmm"), o); }
Tensor Tensor::matmul(const Tensor& o) const { return nabla::matmul(self("Tensor::matmul"), o); }
Tensor Tensor::addmm(const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) const {
  return nabla::addmm(self("Tensor::addmm"), a, b, beta, alpha);
}
Tensor Tensor::outer(const Tensor& o) const { return nabla::outer(self("Tensor::outer"), o); }
Tensor Tensor::dot(const Tensor& o) const { return nabla::dot(self("Tensor::dot"), o); }

// ---- neural-network functions and random draws --------------------------------
Tensor Tensor::softmax(int64_t d) const { return nabla::softmax(self("Tensor::softmax"), d); }
Tensor Tensor::log_softmax(int64_t d) const { return nabla::log_softmax(self("Tensor::log_softmax"), d); }
Tensor Tensor::bernoulli() const { return nabla::bernoulli(self("Tensor::bernoulli")); }

}  // namespace nabla
