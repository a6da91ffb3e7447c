// Embedding lookup and its dense gradient on CPU. Indices are validated in a
// first pass so a bad index raises an error before anything is written.
#include "nabla/kernels/cpu/embedding.h"

#include <cstring>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/nn_util.h"

namespace nabla::cpu {
namespace {

// Indices as int64 host values, each checked against [0, rows).
std::vector<int64_t> checked_indices(const Tensor& indices_in, int64_t rows) {
  Tensor indices = contiguous_input(indices_in);
  std::vector<int64_t> idx(static_cast<std::size_t>(indices.numel()));
  if (indices.dtype() == kInt64) {
    const int64_t* p = static_cast<const int64_t*>(indices.raw_data());
    idx.assign(p, p + idx.size());
  } else if (indices.dtype() == kInt32) {
    const int32_t* p = static_cast<const int32_t*>(indices.raw_data());
    idx.assign(p, p + idx.size());
  } else {
    fail("embedding: expected int32 or int64 indices, got ", indices.dtype());
  }
  for (std::size_t i = 0; i < idx.size(); ++i)
    NABLA_CHECK(idx[i] >= 0 && idx[i] < rows, "embedding: index ", idx[i], " (at flat position ", i,
                " of indices of shape ", indices.sizes(), ") is out of range for a weight of ", rows,
                " rows; expected indices in [0, ", rows, ")");
  return idx;
}

}  // namespace

void embedding(const Tensor& indices, const Tensor& weight_in, const Tensor& out) {
  Tensor weight = contiguous_input(weight_in);
  int64_t rows = weight.sizes()[0], d = weight.sizes()[1];
  std::vector<int64_t> idx = checked_indices(indices, rows);
  std::size_t row_bytes = static_cast<std::size_t>(d) * itemsize(weight.dtype());
  const char* w = static_cast<const char*>(weight.raw_data());
  char* o = static_cast<char*>(out.raw_data());
  int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(d, 1));
  parallel_for(0, static_cast<int64_t>(idx.size()), grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(o + i * row_bytes, w + idx[i] * row_bytes, row_bytes);
  });
}

void embedding_backward(const Tensor& grad_in, const Tensor& indices, int64_t padding_idx, const Tensor& out) {
  Tensor grad = contiguous_input(grad_in);
  int64_t rows = out.sizes()[0], d = out.sizes()[1];
  std::vector<int64_t> idx = checked_indices(indices, rows);
  visit_float(out.dtype(), "embedding_backward", [&]<class T>() {
    const T* g = static_cast<const T*>(grad.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    std::fill(o, o + out.numel(), T(0));
    // Serial over indices (rows repeat, so splitting them would race); the
    // inner loop over d vectorizes.
    for (std::size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] == padding_idx) continue;
      T* dst = o + idx[i] * d;
      const T* src = g + static_cast<int64_t>(i) * d;
      for (int64_t j = 0; j < d; ++j) dst[j] += src[j];
    }
  });
}

}  // namespace nabla::cpu
