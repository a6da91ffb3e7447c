// Accelerator kernels (OpenCL, CUDA) of max_dim, min_dim, cumsum, cumprod and var
// (kernels/device/row_reduce.h).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/row_reduce.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/accel/row_geometry.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduction.h"

namespace nabla {
extern const OpDef max_dim_op, min_dim_op, cumsum_op, cumprod_op, var_op;  // ops/reduction_ops.cpp

namespace accel {
namespace {

// The row_reduce program for data type t (and S, the scan's input type; A,
// var's accumulator): one program per combination that occurs.
Launch row_launch(DeviceRef dev, DType t, DType s, const char* kernel, const char* op) {
  const DType acc = dev.fp64() ? kFloat64 : kFloat32;
  const std::string key =
      std::string("row_reduce|") + std::string(dtype_name(t)) + '|' + std::string(dtype_name(s)) + '|' + kernel;
  const auto make_source = [&] {
    return program({{"T", t}, {"S", s}, {"A", acc}}, with_float_flag(t, device_c::row_reduce_source()));
  };
  return Launch(dev, key, kernel, make_source, op);
}

// Attrs: dim, keepdim. Outputs: values, int64 indices (contiguous: line g of
// the input is element g of either shape).
void arg_reduce_kernel(const OpDef& op, Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* name = op.name.data();
  const DeviceRef dev = device_ref(out[0].device(), name);
  const DType t = in[0].dtype();
  check_dtype(name, t, dev);
  if (in[0].numel() == 0) return;
  NABLA_CHECK(out[0].is_contiguous() && out[1].is_contiguous(), name, ": the OpenCL kernel writes contiguous outputs");
  const Tensor x = dense(in[0]);
  const RowGeometry r(x, in[0].dim() == 0 ? 0 : a.i(0));
  Launch k = row_launch(dev, t, t, "nb_arg_reduce", name);
  k.arg(out[0]).arg(out[1]).arg(x).arg(r.lines()).arg(r.n).arg(r.inner).arg_as(kInt32, &op == &max_dim_op ? 1 : 0);
  k.run(static_cast<std::size_t>(r.lines()));
}

// Attrs: dim. Output: x's dtype for floats, int64 for integers and bool.
void scan_kernel(const OpDef& op, Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* name = op.name.data();
  const DeviceRef dev = device_ref(out[0].device(), name);
  const DType t = out[0].dtype(), s = in[0].dtype();
  check_dtype(name, s, dev);
  check_dtype(name, t, dev);
  if (in[0].numel() == 0) return;
  NABLA_CHECK(out[0].is_contiguous(), name, ": the OpenCL kernel writes a contiguous output");
  const Tensor x = dense(in[0]);
  const RowGeometry r(x, in[0].dim() == 0 ? 0 : a.i(0));
  Launch k = row_launch(dev, t, s, "nb_scan", name);
  k.arg(out[0]).arg(x).arg(r.lines()).arg(r.n).arg(r.inner).arg_as(kInt32, &op == &cumprod_op ? 1 : 0);
  k.run(static_cast<std::size_t>(r.lines()));
}

// Attrs: dims (normalized, sorted), correction, keepdim. When the kept dims
// are one block between reduced ones (batch norm's channel dim), x is read
// as [reduced before, kept, reduced after] in place; otherwise the kept dims
// are moved first and made dense: [1, kept, reduced]. Either way each output
// element is one work item, reducing in the CPU's order.
void var_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  const DeviceRef dev = device_ref(out[0].device(), "var");
  const DType t = in[0].dtype();
  check_dtype("var", t, dev);
  const Tensor& x = in[0];
  const Shape& dims = a.ints(0);
  const int64_t rows = out[0].numel();
  if (rows == 0) return;
  NABLA_CHECK(out[0].is_contiguous(), "var: the OpenCL kernel writes a contiguous output");
  const int64_t rank = x.dim();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (int64_t d : dims) reduced[static_cast<std::size_t>(d)] = true;
  int64_t first_kept = 0, end_kept = rank;  // the kept dims' span
  while (first_kept < rank && reduced[static_cast<std::size_t>(first_kept)]) ++first_kept;
  while (end_kept > first_kept && reduced[static_cast<std::size_t>(end_kept - 1)]) --end_kept;
  bool kept_block = true;
  for (int64_t d = first_kept; d < end_kept; ++d) kept_block = kept_block && !reduced[static_cast<std::size_t>(d)];
  Tensor layout;
  int64_t outer = 1, inner = 1;
  if (kept_block) {
    layout = dense(x);
    for (int64_t d = 0; d < first_kept; ++d) outer *= x.sizes()[d];
    for (int64_t d = end_kept; d < rank; ++d) inner *= x.sizes()[d];
  } else {
    Shape perm;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[static_cast<std::size_t>(d)]) perm.push_back(d);
    for (int64_t d : dims) perm.push_back(d);
    layout = dense(x.permute(perm));
    inner = reduced_count(x.sizes(), dims);
  }
  const int64_t n = reduced_count(x.sizes(), dims);
  // Long rows: one work-group per output (kVarGroup is the source's NB_VAR_GROUP).
  constexpr std::size_t kVarGroup = 256;
  const bool grouped = n >= 4 * static_cast<int64_t>(kVarGroup);
  Launch k = row_launch(dev, t, t, grouped ? "nb_var_group" : "nb_var", "var");
  k.arg(out[0]).arg(layout).arg(outer).arg(rows).arg(inner).arg_as(t, static_cast<double>(n));
  k.arg_as(t, var_denominator(x.sizes(), a));
  if (grouped)
    k.run(static_cast<std::size_t>(rows) * kVarGroup, kVarGroup);
  else
    k.run(static_cast<std::size_t>(rows));
}

}  // namespace

void register_row_reduce_kernels(DeviceType type) {
  for (const OpDef* op : {&max_dim_op, &min_dim_op}) register_boxed_kernel(*op, type, arg_reduce_kernel);
  for (const OpDef* op : {&cumsum_op, &cumprod_op}) register_boxed_kernel(*op, type, scan_kernel);
  register_kernel(var_op, type, var_kernel);
}

}  // namespace accel
}  // namespace nabla
