// CPU kernels of cat, flip and tril/triu (see rearrange.h).
#include "nabla/kernels/cpu/rearrange.h"

#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/index_loops.h"

namespace nabla::cpu {

void cat(std::span<const Tensor> inputs, int64_t dim, const Tensor& out) {
  // Each input lands in a strided view of out: the cast kernel's loop engine
  // then copies with merged, vectorized inner loops.
  int64_t at = 0;
  for (const Tensor& in : inputs) {
    if (in.numel() == 0) {
      at += in.dim() ? in.sizes()[dim] : 0;
      continue;
    }
    Tensor dst[1] = {make_view(out, in.sizes(), out.strides(), out.storage_offset() + at * out.strides()[dim])};
    const Tensor src[1] = {in};
    cast_kernel(src, {}, dst);
    at += in.sizes()[dim];
  }
}

void flip(const Tensor& x, const Shape& dims, const Tensor& out) {
  // Read x backwards along the flipped dims: start at their last element and
  // negate their strides.
  Shape xs = x.strides();
  int64_t start = 0;
  for (int64_t d : dims) {
    if (x.sizes()[d] == 0) return;
    start += (x.sizes()[d] - 1) * xs[d];
    xs[d] = -xs[d];
  }
  visit_item(itemsize(x.dtype()), [&]<class U>() {
    const U* xp = static_cast<const U*>(x.raw_data()) + start;
    U* op = static_cast<U*>(out.raw_data());
    for_each_offset<2>(x.sizes(), {out.strides().data(), xs.data()}, [&](const auto& o) { op[o[0]] = xp[o[1]]; });
  });
}

void triangle(const Tensor& x, int64_t diagonal, bool lower, const Tensor& out) {
  const int64_t nd = x.dim(), rows = x.sizes()[nd - 2], cols = x.sizes()[nd - 1];
  const int64_t xr = x.strides()[nd - 2], xc = x.strides()[nd - 1];
  Shape batch(x.sizes().begin(), x.sizes().end() - 2);
  Shape xb(x.strides().begin(), x.strides().end() - 2), ob(out.strides().begin(), out.strides().end() - 2);
  visit_item(itemsize(x.dtype()), [&]<class U>() {
    const U* xp = static_cast<const U*>(x.raw_data());
    U* op = static_cast<U*>(out.raw_data());
    for_each_offset<2>(batch, {ob.data(), xb.data()}, [&](const auto& o) {
      U* dst = op + o[0];  // out is contiguous: rows of `cols` items
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
          dst[r * cols + c] = keep ? xp[o[1] + r * xr + c * xc] : U(0);  // all-zero bits: 0 in every dtype
        }
      }
    });
  });
}

}  // namespace nabla::cpu
