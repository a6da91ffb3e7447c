#include "nabla/kernels/accel/sort.h"

#include "nabla/kernels/accel/register.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/sort.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/accel/row_geometry.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef sort_op, topk_op;  // ops/sort_ops.cpp

namespace accel {
namespace {

Program sort_source(DType t) { return program({{"T", t}}, with_float_flag(t, device_c::sort_source())); }

Launch sort_launch(DeviceRef dev, DType t, const char* kernel, const char* op) {
  const std::string key = std::string("sort|") + std::string(dtype_name(t)) + '|' + kernel;
  const auto make_source = [t] { return sort_source(t); };
  return Launch(dev, key, kernel, make_source, op);
}

// topk picks up to this many per line by selection (O(k n)) rather than by
// sorting the line (O(n log^2 n) over ceil(log2(n / 16)) + 2 launches).
constexpr int64_t kSelectMaxK = 16;

Tensor scratch(DeviceRef dev, int64_t n, DType t) {
  return make_empty({std::max<int64_t>(n, 1)}, t, dev.device());
}

// x (dense) seen as [outer, n, inner] around `dim`, sorted along it; its
// first k per line written to values and indices ([outer, k, inner]).
void sort_lines(const char* op, const Tensor& x_in, int64_t dim, SortOrder order, int64_t k, bool sorted,
                const Tensor& values, const Tensor& indices) {
  NoGradGuard no_grad;
  const DeviceRef dev = device_ref(values.device(), op);
  const DType t = x_in.dtype();
  check_dtype(op, t, dev);
  if (x_in.numel() == 0 || k == 0) return;
  NABLA_CHECK(values.is_contiguous() && indices.is_contiguous(), op, ": the OpenCL kernel writes contiguous outputs");
  const Tensor x = dense(x_in);
  const RowGeometry r(x, dim);
  const int64_t rows = r.lines(), n = r.n;
  if (k <= kSelectMaxK && k < n) {
    Launch sel = sort_launch(dev, t, "nb_topk_select", op);
    sel.arg(values).arg(indices).arg(x).arg(rows).arg(n).arg(k).arg(r.inner);
    sel.arg_as(kInt32, static_cast<int>(order)).arg_as(kInt32, sorted ? 1 : 0).run(static_cast<std::size_t>(rows));
    return;
  }
  Tensor v = scratch(dev, rows * n, t), idx = scratch(dev, rows * n, kInt64);
  Launch load = sort_launch(dev, t, "nb_sort_load", op);
  load.arg(v).arg(idx).arg(x).arg(rows).arg(n).arg(r.inner).run(static_cast<std::size_t>(rows * n));
  std::tie(v, idx) = sort_rows(dev, op, v, idx, rows, n, order);
  int64_t stride = n;  // of the rows in v and idx
  if (!sorted) {
    // topk(sorted=false): the k chosen, in input order (as the CPU gives them).
    Tensor kv = scratch(dev, rows * k, t), ki = scratch(dev, rows * k, kInt64);
    Launch c = sort_launch(dev, t, "nb_sort_store", op);
    c.arg(kv).arg(ki).arg(v).arg(idx).arg(rows).arg(n).arg(k).arg(int64_t{1}).run(static_cast<std::size_t>(rows * k));
    std::tie(v, idx) = sort_rows(dev, op, kv, ki, rows, k, SortOrder::ByPosition);
    stride = k;
  }
  Launch s = sort_launch(dev, t, "nb_sort_store", op);
  s.arg(values).arg(indices).arg(v).arg(idx).arg(rows).arg(stride).arg(k).arg(r.inner);
  s.run(static_cast<std::size_t>(rows * k));
}

// Attrs: dim, descending, stable (every sort here is stable, as on the CPU).
void sort_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const int64_t dim = a.i(0);
  const int64_t n = in[0].dim() == 0 ? 1 : in[0].sizes()[dim];
  sort_lines("sort", in[0], dim, a.b(1) ? SortOrder::Descending : SortOrder::Ascending, n, true, out[0], out[1]);
}

// Attrs: k, dim, largest, sorted.
void topk_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  sort_lines("topk", in[0], a.i(1), a.b(2) ? SortOrder::Descending : SortOrder::Ascending, a.i(0), a.b(3), out[0],
             out[1]);
}

}  // namespace

std::pair<Tensor, Tensor> sort_rows(DeviceRef dev, const char* op, Tensor v, Tensor idx, int64_t rows, int64_t n,
                                    SortOrder order) {
  const DType t = v.dtype();
  // Runs of kRun first (ties stay in order: insertion sort is stable).
  constexpr int64_t kRun = 16;
  const int64_t runs = (n + kRun - 1) / kRun;
  Launch r = sort_launch(dev, t, "nb_sort_runs", op);
  r.arg(v).arg(idx).arg(rows).arg(n).arg(kRun).arg_as(kInt32, static_cast<int>(order));
  r.run(static_cast<std::size_t>(rows * runs));
  Tensor v2, idx2;
  for (int64_t width = kRun; width < n; width *= 2) {
    if (!v2.defined()) {
      v2 = scratch(dev, rows * n, t);
      idx2 = scratch(dev, rows * n, kInt64);
    }
    Launch k = sort_launch(dev, t, "nb_sort_merge", op);
    k.arg(v2).arg(idx2).arg(v).arg(idx).arg(rows).arg(n).arg(width).arg_as(kInt32, static_cast<int>(order));
    k.run(static_cast<std::size_t>(rows * n));
    std::swap(v, v2);
    std::swap(idx, idx2);
  }
  return {v, idx};
}

void register_sort_kernels(DeviceType type) {
  register_kernel(sort_op, type, sort_kernel);
  register_kernel(topk_op, type, topk_kernel);
}

}  // namespace accel
}  // namespace nabla
