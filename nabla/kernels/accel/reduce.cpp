// Reductions over dims (sum, prod, amax, amin, all, any) generated from
// device/elementwise_exprs.h's ReduceExpr rows as device C kernels, at any
// input layout: one work item per output element loops over its reduced
// elements, or, for long reductions (a batch norm's or a bias gradient's sum
// over [N, H, W]: a few outputs of 10^4..10^6 elements each), one work-group
// per output element shares the loop and combines in a tree (on a GPU one
// item per output would leave nearly all of it idle: measured on an H200,
// ms per such sum).
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

// Reductions of at least kGroupFrom elements per output run as work-groups
// of kGroup items.
constexpr int64_t kGroup = 256, kGroupFrom = 4 * kGroup;

// The kernel (device/elementwise_source.h, shared by every backend and by
// the NVRTC compile test) with A = the accumulator; group 0: nb_reduce.
Program render(const device_c::ReduceExpr& e, DType in, DType acc, DType out, std::size_t keep_rank,
               std::size_t red_rank, std::size_t group) {
  const bool fl = is_floating(acc);
  return program({{"A", acc}}, group == 0 ? device_c::reduce_kernel_body(e, in, fl, out, keep_rank, red_rank)
                                          : device_c::reduce_group_kernel_body(e, in, fl, out, keep_rank, red_rank, group));
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
  const std::size_t group = n_red >= kGroupFrom ? static_cast<std::size_t>(kGroup) : 0;
  if (group != 0) key += "|group" + std::to_string(group);
  Launch k(
      dev, key, group != 0 ? "nb_reduce_group" : "nb_reduce",
      [&] { return render(e, in, acc, out.dtype(), ksizes.size(), rsizes.size(), group); }, op.data());
  k.arg(out).arg(x).arg(n_out).arg(n_red);
  for (std::size_t d = 0; d < ksizes.size(); ++d) k.arg(ksizes[d]).arg(kstrides[d]);
  for (std::size_t d = 0; d < rsizes.size(); ++d) k.arg(rsizes[d]).arg(rstrides[d]);
  if (group != 0)
    k.run(static_cast<std::size_t>(n_out) * group, group);
  else
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
