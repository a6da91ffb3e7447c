// CPU kernels of gather/scatter/take/masked_select/one_hot (see indexing.h).
// Loops are serial: scatter must be (duplicate indices), and the others are
// bound by memory and index checks; a parallel split can come with a benchmark.
#include "nabla/kernels/cpu/indexing.h"

#include <type_traits>

#include "nabla/kernels/cpu/index_loops.h"

namespace nabla::cpu {
namespace {

inline void check_index(int64_t i, int64_t bound, int64_t dim, std::string_view op) {
  if (i < 0 || i >= bound) [[unlikely]]
    fail(op, ": index ", i, " is out of bounds for dim ", dim, " of size ", bound, " (expected an index in [0, ",
         bound, "))");
}

// Strides of t with the stride of `dim` replaced by 0 (the index supplies it),
// or all zeros (nd of them) for a 0-dim t broadcast as one value.
Shape strides_without(const Tensor& t, int64_t dim, std::size_t nd) {
  if (t.dim() == 0) return Shape(nd, 0);
  Shape s = t.strides();
  s[dim] = 0;
  return s;
}

}  // namespace

void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out, std::string_view op) {
  const int64_t bound = x.dim() ? x.sizes()[dim] : 1;
  const int64_t step = x.dim() ? x.strides()[dim] : 0;
  const Shape xs = strides_without(x, dim, index.sizes().size());
  const int64_t* ip = index.data_ptr<int64_t>();
  visit_item(itemsize(x.dtype()), [&]<class U>() {
    const U* xp = static_cast<const U*>(x.raw_data());
    U* op_ = static_cast<U*>(out.raw_data());
    for_each_offset<3>(index.sizes(), {out.strides().data(), index.strides().data(), xs.data()}, [&](const auto& o) {
      int64_t i = ip[o[1]];
      check_index(i, bound, dim, op);
      op_[o[0]] = xp[o[2] + i * step];
    });
  });
}

void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate,
             std::string_view op) {
  const std::size_t nd = index.sizes().size();
  const int64_t bound = out.dim() ? out.sizes()[dim] : 1;
  const int64_t step = out.dim() ? out.strides()[dim] : 0;
  const Shape os = strides_without(out, dim, nd);
  const Shape ss = src.dim() == 0 ? Shape(nd, 0) : src.strides();
  const int64_t* ip = index.data_ptr<int64_t>();
  auto run = [&]<class U>(auto combine) {
    U* op_ = static_cast<U*>(out.raw_data());
    const U* sp = static_cast<const U*>(src.raw_data());
    for_each_offset<3>(index.sizes(), {os.data(), index.strides().data(), ss.data()}, [&](const auto& o) {
      int64_t i = ip[o[1]];
      check_index(i, bound, dim, op);
      combine(op_[o[0] + i * step], sp[o[2]]);
    });
  };
  if (!accumulate) {
    visit_item(itemsize(out.dtype()), [&]<class U>() { run.template operator()<U>([](U& d, U s) { d = s; }); });
    return;
  }
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      fail(op, ": reduced float reached a float32 kernel");
    } else {
      run.template operator()<T>([](T& d, T s) { d = static_cast<T>(d + s); });
    }
  });
}

void take(const Tensor& x, const Tensor& index, const Tensor& out) {
  const int64_t n = x.numel();
  const bool flat = x.is_contiguous();
  const int64_t* ip = index.data_ptr<int64_t>();
  // Offset of the flat (row-major) element i in x's memory.
  auto offset = [&](int64_t i) {
    if (flat) return i;
    int64_t off = 0;
    for (int64_t d = x.dim() - 1; d >= 0; --d) {
      off += (i % x.sizes()[d]) * x.strides()[d];
      i /= x.sizes()[d];
    }
    return off;
  };
  visit_item(itemsize(x.dtype()), [&]<class U>() {
    const U* xp = static_cast<const U*>(x.raw_data());
    U* op_ = static_cast<U*>(out.raw_data());
    for_each_offset<2>(index.sizes(), {out.strides().data(), index.strides().data()}, [&](const auto& o) {
      int64_t i = ip[o[1]];
      if (i < -n || i >= n) [[unlikely]]
        fail("take: index ", i, " is out of bounds for a tensor of ", n, " elements (shape ", x.sizes(),
             "; expected an index in [", -n, ", ", n, "))");
      op_[o[0]] = xp[offset(i < 0 ? i + n : i)];
    });
  });
}

void masked_select(const Tensor& x, const Tensor& mask, const Tensor& out) {
  const bool* mp = mask.data_ptr<bool>();
  const int64_t cap = out.numel();
  int64_t k = 0;
  visit_item(itemsize(x.dtype()), [&]<class U>() {
    const U* xp = static_cast<const U*>(x.raw_data());
    U* op_ = static_cast<U*>(out.raw_data());
    for_each_offset<2>(x.sizes(), {x.strides().data(), mask.strides().data()}, [&](const auto& o) {
      if (!mp[o[1]]) return;
      if (k < cap) op_[k] = xp[o[0]];
      ++k;
    });
  });
  // The count is an attribute computed by the public function; a direct call
  // with a wrong one must not write out of bounds.
  NABLA_CHECK(k == cap, "masked_select: the mask has ", k, " true elements but the output was sized for ", cap);
}

void one_hot(const Tensor& index, int64_t num_classes, const Tensor& out) {
  std::memset(out.raw_data(), 0, static_cast<std::size_t>(out.numel()) * sizeof(int64_t));
  Shape rows = contiguous_strides(index.sizes());
  for (int64_t& s : rows) s *= num_classes;
  const int64_t* ip = index.data_ptr<int64_t>();
  int64_t* op_ = out.data_ptr<int64_t>();
  for_each_offset<2>(index.sizes(), {rows.data(), index.strides().data()}, [&](const auto& o) {
    int64_t c = ip[o[1]];
    if (c < 0 || c >= num_classes) [[unlikely]]
      fail("one_hot: class value ", c, " is out of range for num_classes ", num_classes, " (expected a value in [0, ",
           num_classes, "))");
    op_[o[0] + c] = 1;
  });
}

}  // namespace nabla::cpu
