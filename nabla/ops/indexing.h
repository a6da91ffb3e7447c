// Indexing, joining and sorting ops, with PyTorch's semantics and defaults.
// Index tensors are int64 (int32 is accepted and cast); every index is
// bounds-checked and bad input raises nabla::Error naming the op. Indices
// never get gradients; the data inputs do.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

// ---- indexing (ops/indexing_ops.cpp) ---------------------------------------

// out[i][j] = x[index[i][j]][j] (dim 0) / x[i][index[i][j]] (dim 1) ...;
// index has x's number of dims and is no larger than x outside `dim`.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// A copy of x with out[..index[p]..] = src[p] (duplicates: one of them wins).
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
// Like scatter, but adds: out[..index[p]..] += src[p].
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// The slices of x at the positions of the 1-D `index` along dim.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// A copy of x with out.select(dim, index[i]) += alpha * source.select(dim, i).
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
// x where mask (bool, broadcast) is false, value where it is true; `value` may
// be a 0-dim tensor (differentiable).
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);
// The elements of x where mask (bool, broadcast with x) is true, as a 1-D tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// x.flatten()[index], shaped like index; negative indices count from the end.
Tensor take(const Tensor& x, const Tensor& index);
// int64 one-hot encoding: shape index.shape + [num_classes]; -1 uses max(index) + 1.
Tensor one_hot(const Tensor& index, int64_t num_classes = -1);

// ---- joining and rearranging (ops/join_ops.cpp, ops/rearrange_ops.cpp) -----

// Concatenates along an existing dim; 1-D empty tensors are skipped (PyTorch's legacy rule).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Joins equal-shaped tensors along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Pieces of split_size along dim (the last may be smaller), or pieces of the given sizes.
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, IntList split_sizes, int64_t dim = 0);
// split with sizes, under PyTorch's other name for it.
std::vector<Tensor> split_with_sizes(const Tensor& x, IntList split_sizes, int64_t dim = 0);
// At most `chunks` pieces of ceil(size / chunks) along dim.
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
// Repeats x along each dim (repeats may have more dims than x: new leading dims).
Tensor repeat(const Tensor& x, IntList repeats);
// Like repeat, but fewer reps than dims repeat the trailing dims (NumPy's tile).
Tensor tile(const Tensor& x, IntList reps);
// Reverses the order of elements along each of dims.
Tensor flip(const Tensor& x, IntList dims);
// Rolls elements along dims by shifts (wrapping around); with no dims, rolls the
// flattened tensor and restores the shape.
Tensor roll(const Tensor& x, IntList shifts, IntList dims = {});
// Lower/upper triangle of the last two dims; diagonal > 0 is above the main one.
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);

// ---- sorting (ops/sort_ops.cpp) ----------------------------------------------

// (values, int64 indices) along dim. The sort is always stable (equal values
// keep their order; `stable` is accepted for PyTorch compatibility); NaN sorts
// as the largest value.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
// The k largest (or smallest) along dim with their indices; sorted = false
// keeps them in the order they appear in x.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);

}  // namespace nabla
