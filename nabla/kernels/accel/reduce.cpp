// Reductions over dims (sum, prod, amax, amin, all, any) generated from
// device/elementwise_exprs.h's ReduceExpr rows as device C kernels: one work
// item per output element loops over its reduced elements, at any input
// layout.
#include <vector>

#include "nabla/kernels/accel/register.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/device/elementwise_exprs.h"
#include "nabla/kernels/device/elementwise_source.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla::accel {
namespace {

// Sizes and strides of a group of dims, size-1 dims dropped and contiguous
// neighbours merged.
void add_dim(std::vector<int64_t>& sizes, std::vector<int64_t>& strides, int64_t size, int64_t stride) {
  if (size == 1) return;
  if (!sizes.empty() && strides.back() == stride * size) {
    sizes.back() *= size;
    strides.back() = stride;
    return;
  }
  sizes.push_back(size);
  strides.push_back(stride);
}

// The kernel (device/elementwise_source.h, shared by every backend and by
// the NVRTC compile test) with A = the accumulator.
Program render(const device_c::ReduceExpr& e, DType in, DType acc, DType out, std::size_t keep_rank,
               std::size_t red_rank) {
  return program({{"A", acc}}, device_c::reduce_kernel_body(e, in, is_floating(acc), out, keep_rank, red_rank));
}

void run_reduce(const device_c::ReduceExpr& e, Inputs inputs, const Attrs& attrs, Tensor& out) {
  const std::string_view op = e.op->name;
  const Tensor& x = inputs[0];
  const DeviceRef dev = device_ref(out.device(), op.data());
  const DType in = x.dtype();
  check_dtype(op.data(), in, dev);
  check_dtype(op.data(), out.dtype(), dev);
  NABLA_CHECK(out.is_contiguous(), op, ": the reduction kernel writes a contiguous output");
  const DType acc = is_floating(in) ? (dev.fp64() ? kFloat64 : kFloat32) : kInt64;
  const int64_t n_out = out.numel();
  if (n_out == 0) return;
  const TensorImpl* p = x.impl();
  std::vector<bool> reduced(p->sizes.size(), false);
  for (int64_t d : attrs.ints(0)) reduced[static_cast<std::size_t>(d)] = true;
  std::vector<int64_t> ksizes, kstrides, rsizes, rstrides;
  int64_t n_red = 1;
  for (std::size_t d = 0; d < p->sizes.size(); ++d) {
    if (reduced[d]) {
      add_dim(rsizes, rstrides, p->sizes[d], p->strides[d]);
      n_red *= p->sizes[d];
    } else {
      add_dim(ksizes, kstrides, p->sizes[d], p->strides[d]);
    }
  }
  std::string key(op);
  ((key += '|') += dtype_name(in)) += '|';
  key += dtype_name(out.dtype());
  key += '|' + std::to_string(ksizes.size()) + ',' + std::to_string(rsizes.size());
  Launch k(
      dev, key, "nb_reduce",
      [&] { return render(e, in, acc, out.dtype(), ksizes.size(), rsizes.size()); }, op.data());
  k.arg(out).arg(x).arg(n_out).arg(n_red);
  for (std::size_t d = 0; d < ksizes.size(); ++d) k.arg(ksizes[d]).arg(kstrides[d]);
  for (std::size_t d = 0; d < rsizes.size(); ++d) k.arg(rsizes[d]).arg(rstrides[d]);
  k.run(static_cast<std::size_t>(n_out));
}

// Every row's op runs through this one kernel, which is told its op.
void reduce_kernel(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  for (const device_c::ReduceExpr& row : device_c::reduce_exprs())
    if (row.op == &op) return run_reduce(row, inputs, attrs, outputs[0]);
  fail(op.name, ": no reduction kernel is generated for this op");
}

}  // namespace

void register_reduce_kernels(DeviceType type) {
  for (const device_c::ReduceExpr& row : device_c::reduce_exprs()) register_boxed_kernel(*row.op, type, reduce_kernel);
}

}  // namespace nabla::accel
