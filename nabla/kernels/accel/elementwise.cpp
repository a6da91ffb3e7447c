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
#include "nabla/ops/kernel_registry.h"

namespace nabla::accel {
namespace {

// Helpers in device C, for the kernel's compute type T (NB_FLOAT: whether T is
// floating). Integer division by zero cannot raise on a device: it gives 0
// (docs/devices.md); the CPU raises an Error.
constexpr const char* kHelpers = R"DC(
NB_FN T nb_clamp(T x, T lo, T hi) {
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  return x;
}
#if NB_FLOAT
NB_FN T nb_floordiv(T x, T y) {
  if (y == (T)0) return x / y;
  T mod = NB_FMOD(x, y);
  T div = (x - mod) / y;
  if (mod != (T)0 && (y < (T)0) != (mod < (T)0)) div -= (T)1;
  if (div == (T)0) return NB_COPYSIGN((T)0, x / y);
  T fl = NB_FLOOR(div);
  return div - fl > (T)0.5 ? fl + (T)1 : fl;
}
NB_FN T nb_remainder(T x, T y) {
  T r = NB_FMOD(x, y);
  return (r != (T)0 && ((r < (T)0) != (y < (T)0))) ? r + y : r;
}
#else
NB_FN T nb_idiv(T x, T y) {
  if (y == (T)0) return (T)0;
  if ((T)-1 < (T)0 && y == (T)-1) return (T)(-x);
  return (T)(x / y);
}
NB_FN T nb_ifloordiv(T x, T y) {
  T q = nb_idiv(x, y);
  T r = (T)(x - q * y);
  return (y != (T)0 && r != (T)0 && ((x < (T)0) != (y < (T)0))) ? (T)(q - 1) : q;
}
NB_FN T nb_iremainder(T x, T y) {
  if (y == (T)0) return (T)0;
  T r = (T)(x - nb_idiv(x, y) * y);
  return (r != (T)0 && ((r < (T)0) != (y < (T)0))) ? (T)(r + y) : r;
}
NB_FN T nb_ipow(T x, T y) {
  if (y < (T)0) return x == (T)1 ? (T)1 : x == (T)-1 ? (((T)(-y) % 2) ? (T)-1 : (T)1) : (T)0;
  T r = (T)1;
  for (T base = x, e = y; e > (T)0; e >>= 1, base = (T)(base * base))
    if (e & 1) r = (T)(r * base);
  return r;
}
#endif
)DC";

constexpr int kMaxInputs = 3;
constexpr const char* kNames[kMaxInputs] = {"x", "y", "z"};

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

// The kernel, in device C: one work item per output element; its index is
// unravelled over the sizes (innermost first) into each operand's strided
// position. `c_type` is the backend's C type of each dtype.
Program render(const device_c::ElementwiseExpr& e, const char* expr, DType compute, const std::vector<Operand>& ops,
               std::size_t rank, const Runtime& rt) {
  const std::size_t n_in = ops.size() - 1;
  auto c_type = [&](DType t) { return std::string(rt.c_type(t)); };
  std::string s = std::string("#define NB_FLOAT ") + (is_floating(compute) ? "1" : "0") + "\n";
  s += kHelpers;
  s += "NB_KERNEL nb_elementwise(NB_GLOBAL " + c_type(ops[0].dtype) + "* out, long out_off";
  for (std::size_t i = 0; i < n_in; ++i)
    s += ", NB_GLOBAL const " + c_type(ops[i + 1].dtype) + "* in" + std::to_string(i) + ", long in" +
         std::to_string(i) + "_off";
  for (int a = 0; a < e.num_attrs; ++a) s += ", T a" + std::to_string(a);
  s += ", long n";
  for (std::size_t d = 0; d < rank; ++d) s += ", long size" + std::to_string(d);
  for (std::size_t k = 0; k < ops.size(); ++k)
    for (std::size_t d = 0; d < rank; ++d) s += ", long st" + std::to_string(k) + "_" + std::to_string(d);
  s += ") {\n  const long gid = NB_INDEX;\n  if (gid >= n) return;\n  long rest = gid;\n  long p0 = out_off;\n";
  for (std::size_t i = 0; i < n_in; ++i) s += "  long p" + std::to_string(i + 1) + " = in" + std::to_string(i) + "_off;\n";
  for (std::size_t d = rank; d-- > 0;) {
    const std::string ds = std::to_string(d);
    s += d == 0 ? "  {\n    const long c = rest;\n" : "  {\n    const long c = rest % size" + ds + ";\n    rest /= size" + ds + ";\n";
    for (std::size_t k = 0; k < ops.size(); ++k) s += "    p" + std::to_string(k) + " += c * st" + std::to_string(k) + "_" + ds + ";\n";
    s += "  }\n";
  }
  for (std::size_t i = 0; i < n_in; ++i) {
    const std::size_t name = static_cast<std::size_t>(e.first_input) + i;
    s += "  const " + c_type(ops[i + 1].dtype) + " " + kNames[name] + " = in" + std::to_string(i) + "[p" +
         std::to_string(i + 1) + "];\n";
  }
  if (ops[0].dtype == kBool)
    s += "  out[p0] = (uchar)((" + std::string(expr) + ") != 0);\n}\n";
  else
    s += "  out[p0] = (" + c_type(ops[0].dtype) + ")(" + expr + ");\n}\n";
  return program({{"T", compute}}, std::move(s));
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
      dev, key, "nb_elementwise", [&] { return render(e, expr, compute, ops, sizes.size(), *dev.runtime); },
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
