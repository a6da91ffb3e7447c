// The CPU kernels of the reductions, arg-reductions, scans and var
// (ops/reduction_ops.cpp), on the loops of kernels/cpu/reduce.cpp.
#include "nabla/core/memory_format.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/reduce.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduction.h"

namespace nabla {

extern const OpDef sum_op, prod_op, amax_op, amin_op, all_op, any_op, max_dim_op, min_dim_op, cumsum_op, cumprod_op,
    var_op;

namespace cpu {
namespace {

template <class T>
void var_kernel_t(const Tensor& x, const Attrs& a, const Tensor& out) {
  const Shape& dims = a.ints(0);
  const T n = static_cast<T>(reduced_count(x.sizes(), dims)), denom = static_cast<T>(var_denominator(x.sizes(), a));
  Tensor mean = make_empty(reduced_shape(x.sizes(), dims, true), x.dtype(), x.device());
  reduce(x, dims, ReduceKind::Sum, mean);
  map1<T, T>(mean, mean, [n](T s) { return s / n; });
  // In x's memory order (a channels-last x: batch norm's statistics), so the
  // pass and the sum after it run over memory in order.
  const MemoryFormat format = x.dim() == 4 && !x.is_contiguous() && is_contiguous(x, MemoryFormat::ChannelsLast)
                                  ? MemoryFormat::ChannelsLast
                                  : MemoryFormat::Contiguous;
  Tensor squares = make_empty(x.sizes(), x.dtype(), x.device(), format);
  map2<T, T>(squares, x, mean, [](T v, T m) { return (v - m) * (v - m); });
  reduce(squares, dims, ReduceKind::Sum, out);
  map1<T, T>(out, out, [denom](T s) { return s / denom; });
}

template <ReduceKind K>
void reduce_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  reduce(in[0], a.ints(0), K, out[0]);
}

template <bool IsMax>
void arg_reduce_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  if (in[0].dim() == 0) {
    const Tensor src[1] = {in[0]};
    cast_kernel(src, {}, out.subspan(0, 1));
    *static_cast<int64_t*>(out[1].raw_data()) = 0;
    return;
  }
  arg_reduce(in[0], a.i(0), IsMax, out[0], out[1]);
}

template <bool IsProd>
void scan_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Tensor x = in[0];
  if (x.dtype() != out[0].dtype()) {  // integers and bool scan in int64
    x = make_empty(in[0].sizes(), out[0].dtype(), in[0].device());
    Tensor dst[1] = {x};
    cast_kernel(in, {}, dst);
  }
  scan(x, a.i(0), IsProd, out[0]);
}

void var_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  if (in[0].dtype() == kFloat64)
    var_kernel_t<double>(in[0], a, out[0]);
  else
    var_kernel_t<float>(in[0], a, out[0]);
}

const KernelRegistrar kReductionKernels{DeviceType::CPU, {
    {sum_op, reduce_kernel<ReduceKind::Sum>},
    {prod_op, reduce_kernel<ReduceKind::Prod>},
    {amax_op, reduce_kernel<ReduceKind::Max>},
    {amin_op, reduce_kernel<ReduceKind::Min>},
    {all_op, reduce_kernel<ReduceKind::All>},
    {any_op, reduce_kernel<ReduceKind::Any>},
    {max_dim_op, arg_reduce_kernel<true>},
    {min_dim_op, arg_reduce_kernel<false>},
    {cumsum_op, scan_kernel<false>},
    {cumprod_op, scan_kernel<true>},
    {var_op, var_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla
