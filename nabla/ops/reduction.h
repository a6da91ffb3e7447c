// Reductions over any set of dims (an empty dim list means all dims), with keepdim.
#pragma once
#include <optional>
#include <type_traits>

#include "nabla/core/tensor.h"
#include "nabla/ops/attrs.h"

namespace nabla {

Tensor sum(const Tensor& x, IntList dims = {}, bool keepdim = false, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x, IntList dims = {}, bool keepdim = false);
Tensor prod(const Tensor& x, IntList dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, IntList dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntList dims = {}, bool keepdim = false);
// max/min of all elements, or (values, indices) along one dim.
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// Variance and standard deviation over dims, in PyTorch 1.13's two forms:
// `unbiased` (true: divide by N - 1, Bessel's correction; false: by N) or a
// Correction{n} (divide by N - n, PyTorch's `correction=` keyword). A plain
// integer in the third place is a compile error rather than a silent
// `unbiased = true`. nabla::std is named like namespace std: call it as
// nabla::std(x) or x.std() (see docs/tensors.md).
Tensor var(const Tensor& x, IntList dims = {}, bool unbiased = true, bool keepdim = false);
Tensor var(const Tensor& x, IntList dims, Correction correction, bool keepdim = false);
template <class Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
Tensor var(const Tensor& x, IntList dims, Int correction, bool keepdim = false) = delete;  // write Correction{n}
Tensor std(const Tensor& x, IntList dims = {}, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& x, IntList dims, Correction correction, bool keepdim = false);
template <class Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>)
Tensor std(const Tensor& x, IntList dims, Int correction, bool keepdim = false) = delete;  // write Correction{n}
Tensor norm(const Tensor& x, double p = 2.0, IntList dims = {}, bool keepdim = false);
Tensor logsumexp(const Tensor& x, IntList dims, bool keepdim = false);
Tensor all(const Tensor& x, IntList dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, IntList dims = {}, bool keepdim = false);
Tensor cumsum(const Tensor& x, int64_t dim);
Tensor cumprod(const Tensor& x, int64_t dim);

// Normalized, sorted, deduplicated reduction dims (all dims when `dims` is empty).
Shape reduction_dims(const Tensor& x, IntList dims, std::string_view op);
// The shape after reducing `dims` (sorted) with or without keepdim.
Shape reduced_shape(const Shape& sizes, const Shape& dims, bool keepdim);
// The number of elements reduced over `dims` (normalized) of `sizes`.
int64_t reduced_count(const Shape& sizes, const Shape& dims);
// var's divisor, max(0, n - correction); attrs: var's (dims, correction, keepdim).
double var_denominator(const Shape& sizes, const Attrs& a);

}  // namespace nabla
