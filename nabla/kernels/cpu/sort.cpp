// CPU kernels of sort and topk (see sort.h). Rows are independent, so they
// are split across the thread pool; each sorts an index permutation.
#include "nabla/kernels/cpu/sort.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/index_loops.h"

namespace nabla::cpu {
namespace {

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Strict "comes before" for ascending (NaN last) or descending (NaN first)
// order; ties broken by position, which makes any sort stable.
template <class T>
struct Before {
  const T* row;
  int64_t stride;
  bool descending;
  bool operator()(int64_t i, int64_t j) const {
    T a = row[i * stride], b = row[j * stride];
    bool an = is_nan(a), bn = is_nan(b);
    if (an != bn) return descending ? an : bn;
    if (!an && a != b) return descending ? a > b : a < b;
    return i < j;
  }
};

// Runs f(x_offset, values_offset, indices_offset) for each row along `dim`.
template <class F>
void for_each_row(const Tensor& x, int64_t dim, const Tensor& values, const Tensor& indices, F&& f) {
  Shape outer = x.sizes(), xs = x.strides(), vs = values.strides(), is = indices.strides();
  outer.erase(outer.begin() + dim);
  xs.erase(xs.begin() + dim);
  vs.erase(vs.begin() + dim);
  is.erase(is.begin() + dim);
  std::vector<std::array<int64_t, 3>> rows;
  for_each_offset<3>(outer, {xs.data(), vs.data(), is.data()}, [&](const auto& o) { rows.push_back(o); });
  int64_t len = std::max<int64_t>(1, x.sizes()[dim]);
  parallel_for(0, static_cast<int64_t>(rows.size()), std::max<int64_t>(1, kParallelGrain / (len * 8)),
               [&](int64_t b, int64_t e) {
                 std::vector<int64_t> perm;
                 for (int64_t r = b; r < e; ++r) f(rows[r], perm);
               });
}

template <class Fn>
void visit_sortable(DType t, Fn&& fn) {
  visit_dtype(t, [&]<class T>() {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) fail("sort: reduced float reached a float32 kernel");
    else fn.template operator()<T>();
  });
}

}  // namespace

void sort(const Tensor& x, int64_t dim, bool descending, const Tensor& values, const Tensor& indices) {
  if (x.dim() == 0) {  // one element: itself, at index 0
    std::memcpy(values.raw_data(), x.raw_data(), itemsize(x.dtype()));
    *indices.data_ptr<int64_t>() = 0;
    return;
  }
  const int64_t n = x.sizes()[dim], xst = x.strides()[dim], vst = values.strides()[dim], ist = indices.strides()[dim];
  visit_sortable(x.dtype(), [&]<class T>() {
    const T* xp = static_cast<const T*>(x.raw_data());
    T* vp = static_cast<T*>(values.raw_data());
    int64_t* ip = indices.data_ptr<int64_t>();
    for_each_row(x, dim, values, indices, [&](const std::array<int64_t, 3>& o, std::vector<int64_t>& perm) {
      perm.resize(static_cast<std::size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      std::sort(perm.begin(), perm.end(), Before<T>{xp + o[0], xst, descending});
      for (int64_t i = 0; i < n; ++i) {
        vp[o[1] + i * vst] = xp[o[0] + perm[i] * xst];
        ip[o[2] + i * ist] = perm[i];
      }
    });
  });
}

void topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, const Tensor& values,
          const Tensor& indices) {
  if (x.dim() == 0) {
    if (k == 1) sort(x, dim, largest, values, indices);
    return;
  }
  const int64_t n = x.sizes()[dim], xst = x.strides()[dim], vst = values.strides()[dim], ist = indices.strides()[dim];
  if (k == 0) return;
  visit_sortable(x.dtype(), [&]<class T>() {
    const T* xp = static_cast<const T*>(x.raw_data());
    T* vp = static_cast<T*>(values.raw_data());
    int64_t* ip = indices.data_ptr<int64_t>();
    for_each_row(x, dim, values, indices, [&](const std::array<int64_t, 3>& o, std::vector<int64_t>& perm) {
      perm.resize(static_cast<std::size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      Before<T> before{xp + o[0], xst, largest};
      if (sorted) {
        std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), before);
      } else {
        std::nth_element(perm.begin(), perm.begin() + (k - 1), perm.end(), before);
        std::sort(perm.begin(), perm.begin() + k);  // in input order
      }
      for (int64_t i = 0; i < k; ++i) {
        vp[o[1] + i * vst] = xp[o[0] + perm[i] * xst];
        ip[o[2] + i * ist] = perm[i];
      }
    });
  });
}

}  // namespace nabla::cpu
