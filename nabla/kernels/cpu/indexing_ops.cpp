// The CPU kernels of the indexing ops (ops/indexing_ops.cpp): attributes
// unpacked for the loops of kernels/cpu/indexing.cpp.
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/indexing.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef gather_op, scatter_op, scatter_value_op, scatter_add_op, index_select_op, index_add_op, take_op,
    masked_select_op, one_hot_op;

namespace cpu {
namespace {

// index viewed with `shape`: its elements run along `dim`, repeated (0 stride)
// along the other dims. This turns index_select into gather and index_add into
// scatter_add without copying the index.
Tensor spread_index(const Tensor& index, const Shape& shape, int64_t dim) {
  Shape st(shape.size(), 0);
  st[dim] = index.dim() ? index.strides()[0] : 0;
  return make_view(index, shape, st, index.storage_offset());
}

void gather_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) { gather(in[0], a.i(0), in[1], out[0], "gather"); }

template <bool Accumulate>
void scatter_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  cast_kernel(in.subspan(0, 1), {}, out);
  scatter(out[0], a.i(0), in[1], in[2], Accumulate, Accumulate ? "scatter_add" : "scatter");
}

void scatter_value_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  cast_kernel(in.subspan(0, 1), {}, out);
  Tensor value = make_empty({}, in[0].dtype(), in[0].device());
  visit_dtype(value.dtype(), [&]<class T>() { *static_cast<T*>(value.raw_data()) = a.scalar(1).to<T>(); });
  scatter(out[0], a.i(0), in[1], value, false, "scatter");
}

void index_select_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  int64_t dim = a.i(0);
  gather(in[0], dim, spread_index(in[1], out[0].sizes(), dim), out[0], "index_select");
}

void index_add_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  int64_t dim = a.i(0);
  cast_kernel(in.subspan(0, 1), {}, out);
  scatter(out[0], dim, spread_index(in[1], in[2].sizes(), dim), in[2], true, "index_add");
}

void take_kernel(Inputs in, const Attrs&, std::span<Tensor> out) { take(in[0], in[1], out[0]); }

void masked_select_kernel(Inputs in, const Attrs&, std::span<Tensor> out) { masked_select(in[0], in[1], out[0]); }

void one_hot_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) { one_hot(in[0], a.i(0), out[0]); }

const KernelRegistrar kIndexingKernels{DeviceType::CPU, {
    {gather_op, gather_kernel},
    {scatter_op, scatter_kernel<false>},
    {scatter_value_op, scatter_value_kernel},
    {scatter_add_op, scatter_kernel<true>},
    {index_select_op, index_select_kernel},
    {index_add_op, index_add_kernel},
    {take_op, take_kernel},
    {masked_select_op, masked_select_kernel},
    {one_hot_op, one_hot_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla
