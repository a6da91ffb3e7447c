// Elementwise kernels generated from device/elementwise_exprs.h: an op's
// expression rendered into a device C kernel (then OpenCL C or CUDA C by the
// backend), compiled once per signature (op, dtypes, rank after merging dims)
// and run on any layout: sizes, strides and offsets are kernel arguments,
// broadcast dims have stride 0.
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "nabla/kernels/accel/register.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/device/elementwise_exprs.h"
#include "nabla/kernels/device/elementwise_source.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla::accel {
namespace {

// One operand's layout over the output's (merged) dims.
struct Operand {
  DType dtype;
  int64_t offset;
  std::vector<int64_t> strides;
};

// Drops size-1 dims and merges dims that are contiguous in every operand, so
// that most calls run the rank-1 kernel.
void merge_dims(std::vector<int64_t>& sizes, std::vector<Operand>& ops) {
  std::vector<int64_t> s;
  std::vector<std::vector<int64_t>> st(ops.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    bool merge = !s.empty();
    for (std::size_t k = 0; merge && k < ops.size(); ++k)
      merge = st[k].back() == ops[k].strides[d] * sizes[d];
    if (merge) {
      s.back() *= sizes[d];
      for (std::size_t k = 0; k < ops.size(); ++k) st[k].back() = ops[k].strides[d];
    } else {
      s.push_back(sizes[d]);
      for (std::size_t k = 0; k < ops.size(); ++k) st[k].push_back(ops[k].strides[d]);
    }
  }
  sizes = std::move(s);
  for (std::size_t k = 0; k < ops.size(); ++k) ops[k].strides = std::move(st[k]);
}

// The kernel (device/elementwise_source.h, shared by every backend and by
// the NVRTC compile test) with T = the compute type.
Program render(const device_c::ElementwiseExpr& e, DType compute, const std::vector<Operand>& ops, std::size_t rank) {
  std::vector<DType> dtypes;
  for (const Operand& o : ops) dtypes.push_back(o.dtype);
  return program({{"T", compute}}, device_c::elementwise_kernel_body(e, compute, dtypes, rank));
}

// Attribute k as the bytes of a T value.
void attr_bytes(const device_c::ElementwiseExpr& e, const Attrs& attrs, int k, DType t, unsigned char* bytes) {
  visit_dtype(t, [&]<class V>() {
    V v{};
    if constexpr (std::is_same_v<V, bool>) {
      v = attrs.f(static_cast<std::size_t>(k)) != 0;
    } else if constexpr (std::is_arithmetic_v<V>) {
      if (e.bounds && attrs.is_none(static_cast<std::size_t>(k))) {
        constexpr bool fp = std::is_floating_point_v<V>;
        if (k == 0) v = fp ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::lowest();
        else v = fp ? std::numeric_limits<V>::infinity() : std::numeric_limits<V>::max();
      } else if (e.bounds) {
        v = attrs.scalar(static_cast<std::size_t>(k)).to<V>();
      } else {
        v = static_cast<V>(attrs.f(static_cast<std::size_t>(k)));
      }
    }
    std::memcpy(bytes, &v, sizeof v);
  });
}

// Runs `e` on the inputs into out (already allocated, on an accelerator, any
// strides). An Error names the op for a dtype the device or the op lacks.
void run_elementwise(const device_c::ElementwiseExpr& e, Inputs inputs, const Attrs& attrs, Tensor& out) {
  const std::string_view op = e.op->name;
  const DeviceRef dev = device_ref(out.device(), op.data());
  const DType compute = inputs[static_cast<std::size_t>(e.compute_input)].dtype();
  const char* expr = is_floating(compute) ? e.float_expr : e.int_expr;
  check_dtype(op.data(), compute, dev);
  NABLA_CHECK(expr, op, ": no ", dev.runtime->name(), " kernel for ", compute, " inputs");
  NABLA_CHECK(!(e.no_bool && compute == kBool), op, ": not defined for bool tensors");
  std::vector<Operand> ops;
  const TensorImpl* o = out.impl();
  ops.push_back({o->dtype, o->offset, std::vector<int64_t>(o->strides.begin(), o->strides.end())});
  const std::size_t rank = o->sizes.size();
  for (std::size_t i = static_cast<std::size_t>(e.first_input); i < inputs.size(); ++i) {
    const TensorImpl* p = inputs[i].impl();
    NABLA_CHECK(inputs[i].device() == out.device(), op, ": input ", i, " is on ", inputs[i].device(),
                " but the output is on ", out.device());
    // Broadcast: the input's dims align with the output's last ones; size-1
    // and missing dims get stride 0.
    std::vector<int64_t> strides(rank, 0);
    const std::size_t lead = rank - p->sizes.size();
    for (std::size_t d = 0; d < p->sizes.size(); ++d)
      strides[lead + d] = p->sizes[d] == 1 ? 0 : p->strides[d];
    ops.push_back({p->dtype, p->offset, std::move(strides)});
  }
  for (const Operand& x : ops) check_dtype(op.data(), x.dtype, dev);
  const int64_t n = out.numel();
  if (n == 0) return;
  std::vector<int64_t> sizes(o->sizes.begin(), o->sizes.end());
  merge_dims(sizes, ops);

  std::string key(op);
  key += '|';
  key += dtype_name(compute);
  for (const Operand& x : ops) (key += ',') += dtype_name(x.dtype);
  key += '|' + std::to_string(sizes.size());
  Launch k(
      dev, key, "nb_elementwise", [&] { return render(e, compute, ops, sizes.size()); },
      op.data());
  for (std::size_t j = 0; j < ops.size(); ++j) k.arg(j == 0 ? out : inputs[static_cast<std::size_t>(e.first_input) + j - 1]);
  for (int a = 0; a < e.num_attrs; ++a) {
    unsigned char bytes[8];
    attr_bytes(e, attrs, a, compute, bytes);
    k.arg_bytes(bytes, itemsize(compute));
  }
  k.arg(n);
  for (int64_t s : sizes) k.arg(s);
  for (const Operand& x : ops)
    for (int64_t st : x.strides) k.arg(st);
  k.run(static_cast<std::size_t>(n));
}

// Every row's op runs through this one kernel, which is told its op.
void elementwise_kernel(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  run_elementwise(*device_c::find_elementwise_expr(op), inputs, attrs, outputs[0]);
}

}  // namespace

void register_elementwise_kernels(DeviceType type) {
  for (const device_c::ElementwiseExpr& row : device_c::elementwise_exprs())
    register_boxed_kernel(*row.op, type, elementwise_kernel);
}

}  // namespace nabla::accel
