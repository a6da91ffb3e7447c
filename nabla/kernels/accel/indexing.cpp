// The accelerator kernels of the indexing ops (ops/indexing_ops.cpp,
// ops/embedding_ops.cpp): gather, scatter, scatter_value, scatter_add,
// index_select, index_add, take, masked_select, one_hot, embedding and
// embedding_backward, on the device C kernels of kernels/device/indexing.h.
//
// As on the CPU, index_select and embedding are gathers and index_add and
// embedding_backward are scatter-adds, through index views with 0 strides.
// Accumulation is deterministic: each work item owns one line of the output
// and adds along it in the CPU's order (kScatterKernel), so there are no
// float atomics (OpenCL 1.2 has none; CUDA runs the same kernels) and float64 sums equal the CPU's.
//
// Indices are checked on the device: a kernel sets a flag on an index out of
// range, the host reads the flag back (BadIndexFlag: one synchronization per
// op) and then raises the CPU's error, finding the offending value in a host
// copy of the index.
#include "nabla/kernels/accel/register.h"

#include <cstring>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/accel/strided.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef gather_op, scatter_op, scatter_value_op, scatter_add_op, index_select_op, index_add_op, take_op,
    masked_select_op, one_hot_op, embedding_op, embedding_backward_op;

namespace accel {
namespace {

// t's strides with dim's set to 0 (the index supplies that coordinate), or
// nd zeros for a 0-dim t.
Shape strides_without(const Tensor& t, int64_t dim, std::size_t nd) {
  if (t.dim() == 0) return Shape(nd, 0);
  Shape s = t.strides();
  s[static_cast<std::size_t>(dim)] = 0;
  return s;
}

// The index viewed over `shape`: its elements along `dim`, repeated along
// the others (index_select, index_add).
Shape spread_strides(const Tensor& index, std::size_t nd, int64_t dim) {
  Shape s(nd, 0);
  s[static_cast<std::size_t>(dim)] = index.dim() ? index.strides()[0] : 0;
  return s;
}

[[noreturn]] void fail_dim_index(const char* op, const Tensor& index, int64_t dim, int64_t bound) {
  int64_t v = 0, at = 0;
  first_index_outside(index, 0, bound, v, at);
  fail(op, ": index ", v, " is out of bounds for dim ", dim, " of size ", bound, " (expected an index in [0, ", bound,
       "))");
}

// out[p] = x[xs . p + step * index[p]] over out's shape (index strides: is).
// True when an index fell outside [0, bound) (after wrapping negatives).
bool run_gather(const char* op, const Tensor& out, const Tensor& index, const Shape& is, const Tensor& x,
                const Shape& xs, int64_t step, int64_t bound, bool wrap) {
  const StridedOperands s(op, out.sizes(), {out.strides(), is, xs});
  if (s.numel() == 0) return false;
  const DeviceRef dev = device_ref(out.device(), op);
  BadIndexFlag bad(out.device(), op);
  Launch k = move_kernel(dev, out.dtype(), "nb_gather", op);
  k.arg(out).arg(index).arg(x).arg(bad.tensor()).arg(s.numel()).arg(step).arg(bound).arg(int64_t{wrap});
  s.add_to(k);
  k.run(static_cast<std::size_t>(s.numel()));
  return bad.raised();
}

// The scatter loop (kScatterKernel): over `lines` (a shape and the out,
// index and src strides), len steps of ostep/istep/sstep each.
struct ScatterPlan {
  Shape lines, out_strides, index_strides, src_strides;
  int64_t len = 1, ostep = 0, istep = 0, sstep = 0, bound = 1, skip = -1;
  bool use_value = false;
  uint64_t value_bits = 0;
};

// True when an index fell outside [0, bound).
bool run_scatter(const char* op, const Tensor& out, const Tensor& index, const Tensor& src, const ScatterPlan& p,
                 bool accumulate) {
  const StridedOperands s(op, p.lines, {p.out_strides, p.index_strides, p.src_strides});
  if (s.numel() == 0 || p.len == 0) return false;
  const DeviceRef dev = device_ref(out.device(), op);
  BadIndexFlag bad(out.device(), op);
  Launch k = accumulate ? accumulate_kernel(dev, out.dtype(), "nb_scatter", op)
                        : move_kernel(dev, out.dtype(), "nb_scatter", op);
  k.arg(out).arg(index).arg(src).arg(bad.tensor()).arg(s.numel()).arg(p.len).arg(p.ostep).arg(p.istep).arg(p.sstep);
  k.arg(p.bound).arg(p.skip).arg(int64_t{p.use_value}).arg_ulong(p.value_bits);
  s.add_to(k);
  k.run(static_cast<std::size_t>(s.numel()));
  return bad.raised();
}

// scatter, scatter_value, scatter_add: out = x, then out[p with p[dim] :=
// index[p]] = src[p] (or value, or += src[p]) over the index's shape.
void scatter_into(const char* op, Inputs in, int64_t dim, const Tensor& out, const Tensor* src, uint64_t value_bits,
                  bool accumulate) {
  const Tensor &x = in[0], &index = in[1];
  copy_items(out, x, op);
  ScatterPlan p;
  const std::size_t nd = index.sizes().size();
  p.lines = index.sizes();
  p.index_strides = index.strides();
  p.out_strides = strides_without(out, dim, nd);
  p.src_strides = src && src->dim() ? src->strides() : Shape(nd, 0);
  if (nd > 0) {
    const auto d = static_cast<std::size_t>(dim);
    p.len = index.sizes()[d];
    p.lines[d] = 1;
    p.istep = index.strides()[d];
    p.ostep = out.strides()[d];
    p.bound = out.sizes()[d];
    p.sstep = src && src->dim() ? src->strides()[d] : 0;
  }
  p.use_value = src == nullptr;
  p.value_bits = value_bits;
  if (run_scatter(op, out, index, src ? *src : out, p, accumulate)) fail_dim_index(op, index, dim, p.bound);
}

void gather_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor &x = in[0], &index = in[1];
  const int64_t dim = a.i(0);
  const int64_t bound = x.dim() ? x.sizes()[static_cast<std::size_t>(dim)] : 1;
  const int64_t step = x.dim() ? x.strides()[static_cast<std::size_t>(dim)] : 0;
  if (run_gather("gather", out[0], index, index.strides(), x, strides_without(x, dim, index.sizes().size()), step,
                 bound, false))
    fail_dim_index("gather", index, dim, bound);
}

void scatter_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  scatter_into("scatter", in, a.i(0), out[0], &in[2], 0, false);
}

void scatter_add_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  scatter_into("scatter_add", in, a.i(0), out[0], &in[2], 0, true);
}

void scatter_value_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  // The value as the tensor's type (as the CPU converts it), its bytes
  // widened to the kernel's ulong argument.
  uint64_t bits = 0;
  visit_dtype(in[0].dtype(), [&]<class T>() {
    const T v = a.scalar(1).to<T>();
    std::memcpy(&bits, &v, sizeof v);  // the low bytes: the kernel narrows back to the item width
  });
  scatter_into("scatter", in, a.i(0), out[0], nullptr, bits, false);
}

void index_select_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor &x = in[0], &index = in[1];
  const int64_t dim = a.i(0);
  const auto d = static_cast<std::size_t>(dim);
  const std::size_t nd = out[0].sizes().size();
  if (run_gather("index_select", out[0], index, spread_strides(index, nd, dim), x, strides_without(x, dim, nd),
                 x.strides()[d], x.sizes()[d], false))
    fail_dim_index("index_select", index, dim, x.sizes()[d]);
}

void index_add_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor &x = in[0], &index = in[1], &source = in[2];
  const int64_t dim = a.i(0);
  const auto d = static_cast<std::size_t>(dim);
  const std::size_t nd = source.sizes().size();
  copy_items(out[0], x, "index_add");
  ScatterPlan p;
  p.lines = source.sizes();
  p.lines[d] = 1;
  p.out_strides = strides_without(out[0], dim, nd);
  p.index_strides = Shape(nd, 0);
  p.src_strides = source.strides();
  p.len = source.sizes()[d];
  p.ostep = out[0].strides()[d];
  p.istep = index.dim() ? index.strides()[0] : 0;
  p.sstep = source.strides()[d];
  p.bound = out[0].sizes()[d];
  if (run_scatter("index_add", out[0], index, source, p, true)) fail_dim_index("index_add", index, dim, p.bound);
}

void take_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const Tensor x = contiguous_items(in[0], "take");
  const Tensor& index = in[1];
  const int64_t n = x.numel();
  if (!run_gather("take", out[0], index, index.strides(), x, Shape(index.sizes().size(), 0), 1, n, true)) return;
  int64_t v = 0, at = 0;
  first_index_outside(index, -n, n, v, at);
  fail("take: index ", v, " is out of bounds for a tensor of ", n, " elements (shape ", x.sizes(),
       "; expected an index in [", -n, ", ", n, "))");
}

// Three passes over blocks (kMoveKernels' nb_mask_*); the total is read back
// to check the count attr, as the CPU checks it (a synchronization; the
// public masked_select has already synchronized to count the mask).
void masked_select_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const char* op = "masked_select";
  const Tensor x = contiguous_items(in[0], op), mask = contiguous_items(in[1], op);
  const int64_t n = x.numel(), cap = out[0].numel();
  int64_t total = 0;
  if (n > 0) {
    constexpr int64_t kBlock = 1024;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    const DeviceRef dev = device_ref(x.device(), op);
    const Tensor counts = make_empty({blocks + 1}, kInt64, x.device(), op);
    move_kernel(dev, x.dtype(), "nb_mask_count", op)
        .arg(counts)
        .arg(mask)
        .arg(n)
        .arg(kBlock)
        .run(static_cast<std::size_t>(blocks));
    move_kernel(dev, x.dtype(), "nb_mask_scan", op).arg(counts).arg(blocks).run(1);
    move_kernel(dev, x.dtype(), "nb_mask_write", op)
        .arg(out[0])
        .arg(x)
        .arg(mask)
        .arg(counts)
        .arg(n)
        .arg(kBlock)
        .arg(cap)
        .run(static_cast<std::size_t>(blocks));
    int64_t t = 0;
    read_items(counts.narrow(0, blocks, 1), &t, sizeof t, op);
    total = t;
  }
  NABLA_CHECK(total == cap, "masked_select: the mask has ", total, " true elements but the output was sized for ", cap);
}

void one_hot_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "one_hot";
  const Tensor& index = in[0];
  const int64_t classes = a.i(0);
  zero_fill(out[0], op);
  Shape rows = contiguous_strides(index.sizes());
  for (int64_t& s : rows) s *= classes;
  const StridedOperands s(op, index.sizes(), {rows, index.strides()});
  if (s.numel() == 0) return;
  const DeviceRef dev = device_ref(index.device(), op);
  BadIndexFlag bad(index.device(), op);
  Launch k = move_kernel(dev, kInt64, "nb_one_hot", op);
  k.arg(out[0]).arg(index).arg(bad.tensor()).arg(s.numel()).arg(classes);
  s.add_to(k);
  k.run(static_cast<std::size_t>(s.numel()));
  if (!bad.raised()) return;
  int64_t v = 0, at = 0;
  first_index_outside(index, 0, classes, v, at);
  fail("one_hot: class value ", v, " is out of range for num_classes ", classes, " (expected a value in [0, ", classes,
       "))");
}

// Embedding indices (int32 or int64) as int64, on the device.
Tensor int64_indices(const Tensor& indices) {
  NoGradGuard no_grad;
  return indices.dtype() == kInt64 ? indices : indices.to(kInt64);
}

[[noreturn]] void fail_embedding_index(const char* op, const Tensor& indices, int64_t rows) {
  int64_t v = 0, at = 0;
  first_index_outside(indices, 0, rows, v, at);
  fail(op, ": index ", v, " (at flat position ", at, " of indices of shape ", indices.sizes(),
       ") is out of range for a weight of ", rows, " rows; expected indices in [0, ", rows, ")");
}

// out[..., :] = weight[indices[...], :]: a gather over out's shape.
void embedding_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const Tensor indices = int64_indices(in[0]);
  const Tensor& weight = in[1];
  const int64_t rows = weight.sizes()[0];
  Shape is = indices.strides(), ws(indices.sizes().size(), 0);
  is.push_back(0);
  ws.push_back(weight.strides()[1]);
  bool bad = run_gather("embedding", out[0], indices, is, weight, ws, weight.strides()[0], rows, false);
  // With 0 columns no kernel ran, but the CPU checks the indices still.
  if (out[0].numel() == 0 && indices.numel() > 0) {
    int64_t v = 0, at = 0;
    bad = first_index_outside(indices, 0, rows, v, at);
  }
  if (bad) fail_embedding_index("embedding", indices, rows);
}

// out [num_weights, D] = the grad rows summed into the rows the indices
// name: one work item per column, adding the rows in index order (the CPU's
// order). Parallel over D only, which is the price of determinism without
// sorting the indices.
void embedding_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "embedding_backward";
  const DType t = out[0].dtype();
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": expected a float32/float64 tensor, got ", t);
  const Tensor grad = contiguous_items(in[0], op);
  const Tensor indices = contiguous_items(int64_indices(in[1]), op);
  const int64_t rows = out[0].sizes()[0], d = out[0].sizes()[1], n = indices.numel();
  zero_fill(out[0], op);
  ScatterPlan p;
  p.lines = {d};
  p.out_strides = {1};
  p.index_strides = {0};
  p.src_strides = {1};
  p.len = n;
  p.ostep = d;
  p.istep = 1;
  p.sstep = d;
  p.bound = rows;
  p.skip = a.i(1);
  bool bad = run_scatter(op, out[0], indices, grad, p, true);
  if (d == 0 && n > 0) {
    int64_t v = 0, at = 0;
    bad = first_index_outside(indices, 0, rows, v, at);
  }
  if (bad) fail_embedding_index(op, indices, rows);
}

}  // namespace

void register_indexing_kernels(DeviceType type) {
  register_kernel(gather_op, type, gather_kernel);
  register_kernel(scatter_op, type, scatter_kernel);
  register_kernel(scatter_value_op, type, scatter_value_kernel);
  register_kernel(scatter_add_op, type, scatter_add_kernel);
  register_kernel(index_select_op, type, index_select_kernel);
  register_kernel(index_add_op, type, index_add_kernel);
  register_kernel(take_op, type, take_kernel);
  register_kernel(masked_select_op, type, masked_select_kernel);
  register_kernel(one_hot_op, type, one_hot_kernel);
  register_kernel(embedding_op, type, embedding_kernel);
  register_kernel(embedding_backward_op, type, embedding_backward_kernel);
}

}  // namespace accel
}  // namespace nabla
