// Shape ops. The views (view, permute, slice, select, expand, unfold) share
// storage with their input; the rest are built from them.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla {

Tensor view(const Tensor& x, IntList sizes);  // one size may be -1
Tensor reshape(const Tensor& x, IntList sizes);
Tensor permute(const Tensor& x, IntList dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step = 1);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor expand(const Tensor& x, IntList sizes);  // -1 keeps a dim
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& x, int64_t dim, IntList sizes);
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step);
Tensor contiguous(const Tensor& x);
Tensor clone(const Tensor& x);
// Functions PyTorch has beside the methods of the same name (torch.t, ...).
Tensor t(const Tensor& x);  // transpose of a tensor of <= 2 dims
Tensor detach(const Tensor& x);  // same data, no autograd history
int64_t numel(const Tensor& x);
bool is_floating_point(const Tensor& x);
// Sums x over broadcast dims so that it has `shape` (the gradient of expand).
Tensor sum_to(const Tensor& x, const Shape& shape);

// Wraps a possibly negative dim into [0, ndim); names `op` on error.
int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op);

}  // namespace nabla
