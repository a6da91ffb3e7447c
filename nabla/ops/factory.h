// Tensor factories: constants, ranges, data from C++ containers or pointers,
// and random tensors from the seeded Philox generator.
#pragma once
#include <initializer_list>
#include <vector>

#include "nabla/core/random.h"
#include "nabla/core/tensor.h"

namespace nabla {

Tensor empty(IntList sizes, TensorOptions options = {});
Tensor zeros(IntList sizes, TensorOptions options = {});
Tensor ones(IntList sizes, TensorOptions options = {});
Tensor full(IntList sizes, const Scalar& value, TensorOptions options = {});
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {});
Tensor linspace(double start, double end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});

// The _like forms take the shape, and by default the dtype and device, of x.
Tensor empty_like(const Tensor& x, std::optional<TensorOptions> options = std::nullopt);
Tensor zeros_like(const Tensor& x, std::optional<TensorOptions> options = std::nullopt);
Tensor ones_like(const Tensor& x, std::optional<TensorOptions> options = std::nullopt);
Tensor full_like(const Tensor& x, const Scalar& value, std::optional<TensorOptions> options = std::nullopt);
Tensor rand_like(const Tensor& x, std::optional<TensorOptions> options = std::nullopt);
Tensor randn_like(const Tensor& x, std::optional<TensorOptions> options = std::nullopt);

// From host data (copied). The dtype follows T unless options say otherwise.
template <class T>
Tensor tensor(const std::vector<T>& values, IntList sizes, std::optional<TensorOptions> options = std::nullopt);
template <class T>
Tensor tensor(const std::vector<T>& values, std::optional<TensorOptions> options = std::nullopt) {
  return tensor(values, {static_cast<int64_t>(values.size())}, options);
}
Tensor tensor(std::initializer_list<double> values, TensorOptions options = {});
Tensor tensor(std::initializer_list<std::initializer_list<double>> rows, TensorOptions options = {});
// From a raw pointer: copied into a new tensor, or borrowed (the caller keeps
// the memory alive and contiguous for the tensor's lifetime).
Tensor from_blob(void* data, IntList sizes, DType dtype, bool borrow = false);

// Random tensors (float dtypes for rand/randn/normal/bernoulli).
Tensor rand(IntList sizes, TensorOptions options = {});
Tensor randn(IntList sizes, TensorOptions options = {});
Tensor randint(int64_t low, int64_t high, IntList sizes, TensorOptions options = TensorOptions(kInt64));
Tensor normal(double mean, double std, IntList sizes, TensorOptions options = {});
Tensor bernoulli(const Tensor& p);
Tensor bernoulli(IntList sizes, double p, TensorOptions options = {});
Tensor randperm(int64_t n, TensorOptions options = TensorOptions(kInt64));

}  // namespace nabla
