// Fused softmax/log_softmax: the tensor is seen as [outer, n, inner] around
// the softmax dim; each (outer, inner) line takes one pass for its max and one
// for the sum of exp(x - max), so large inputs never overflow, then a final
// pass writes the result. When inner > 1 the passes run over whole inner rows
// at a time so the loops stay contiguous (and vectorize) instead of striding.
#include "nabla/kernels/cpu/softmax.h"

#include <cmath>
#include <limits>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/nn_util.h"

namespace nabla::cpu {
namespace {

// One line of n contiguous elements.
template <class T>
void softmax_line(const T* x, T* y, int64_t n, bool log) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  T sum = 0;
  if (log) {
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
    T lse = m + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - lse;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      y[i] = std::exp(x[i] - m);
      sum += y[i];
    }
    T inv = T(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

// One block of n x inner elements (softmax over n, for each of inner columns).
template <class T>
void softmax_block(const T* x, T* y, int64_t n, int64_t inner, bool log, T* m, T* sum) {
  for (int64_t j = 0; j < inner; ++j) {
    m[j] = -std::numeric_limits<T>::infinity();
    sum[j] = 0;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < inner; ++j) m[j] = x[i * inner + j] > m[j] ? x[i * inner + j] : m[j];
  if (log) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < inner; ++j) sum[j] += std::exp(x[i * inner + j] - m[j]);
    for (int64_t j = 0; j < inner; ++j) m[j] += std::log(sum[j]);  // m now holds logsumexp
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < inner; ++j) y[i * inner + j] = x[i * inner + j] - m[j];
  } else {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < inner; ++j) {
        y[i * inner + j] = std::exp(x[i * inner + j] - m[j]);
        sum[j] += y[i * inner + j];
      }
    for (int64_t j = 0; j < inner; ++j) sum[j] = T(1) / sum[j];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < inner; ++j) y[i * inner + j] *= sum[j];
  }
}

}  // namespace

void softmax(const Tensor& x_in, int64_t dim, bool log, const Tensor& out) {
  Tensor x = contiguous_input(x_in);
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < dim) outer *= x.sizes()[d];
    else if (d == dim) n = x.sizes()[d];
    else inner *= x.sizes()[d];
  }
  if (x.numel() == 0) return;
  visit_float(x.dtype(), "softmax", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = static_cast<T*>(out.raw_data());
    int64_t grain = std::max<int64_t>(1, kParallelGrain / (n * inner));
    parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
      if (inner == 1) {
        for (int64_t o = b; o < e; ++o) softmax_line(px + o * n, py + o * n, n, log);
        return;
      }
      std::vector<T> scratch(static_cast<std::size_t>(2 * inner));
      for (int64_t o = b; o < e; ++o)
        softmax_block(px + o * n * inner, py + o * n * inner, n, inner, log, scratch.data(), scratch.data() + inner);
    });
  });
}

}  // namespace nabla::cpu
