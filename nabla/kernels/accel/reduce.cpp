// Reductions over dims (sum, prod, amax, amin, all, any) generated from
// device/elementwise_exprs.h's ReduceExpr rows as device C kernels: one work
// item per output element loops over its reduced elements, at any input
// layout.
#include <vector>

#include "nabla/kernels/accel/register.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/device/elementwise_exprs.h"
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

// Unravels `var` over sizes `<prefix>size<d>` into the position `pos`.
std::string unravel(const char* var, const char* prefix, std::size_t rank, const char* pos) {
  std::string s = std::string("    long rest_") + prefix + " = " + var + ";\n";
  for (std::size_t d = rank; d-- > 0;) {
    const std::string sz = std::string(prefix) + "size" + std::to_string(d);
    const std::string st = std::string(prefix) + "st" + std::to_string(d);
    if (d == 0) {
      s += std::string("    ") + pos + " += rest_" + prefix + " * " + st + ";\n";
    } else {
      s += std::string("    ") + pos + " += (rest_" + prefix + " % " + sz + ") * " + st + ";\n    rest_" + prefix +
           " /= " + sz + ";\n";
    }
  }
  return s;
}

Program render(const device_c::ReduceExpr& e, DType in, DType acc, DType out, std::size_t keep_rank,
               std::size_t red_rank, const Runtime& rt) {
  const bool fp = is_floating(acc);
  std::string s = "NB_KERNEL nb_reduce(NB_GLOBAL " + std::string(rt.c_type(out)) +
                  "* out, long out_off, NB_GLOBAL const " + rt.c_type(in) + "* in, long in_off, long n_out, long n_red";
  for (std::size_t d = 0; d < keep_rank; ++d) s += ", long ksize" + std::to_string(d) + ", long kst" + std::to_string(d);
  for (std::size_t d = 0; d < red_rank; ++d) s += ", long rsize" + std::to_string(d) + ", long rst" + std::to_string(d);
  s += ") {\n  const long gid = NB_INDEX;\n  if (gid >= n_out) return;\n  long base = in_off;\n  {\n";
  s += unravel("gid", "k", keep_rank, "base");
  s += "  }\n";
  const bool first = std::string(e.init) == "first";
  s += std::string("  A acc = ") + (first ? "(A)in[base]" : "(A)(" + std::string(e.init) + ")") + ";\n";
  s += std::string("  for (long j = ") + (first ? "1" : "0") + "; j < n_red; ++j) {\n    long p = base;\n";
  s += unravel("j", "r", red_rank, "p");
  s += "    const A x = (A)in[p];\n    acc = " + std::string(fp ? e.float_combine : e.int_combine) + ";\n  }\n";
  if (out == kBool)
    s += "  out[out_off + gid] = (uchar)(acc != 0);\n}\n";
  else
    s += "  out[out_off + gid] = (" + std::string(rt.c_type(out)) + ")acc;\n}\n";
  return program({{"A", acc}}, std::move(s));
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
      [&] { return render(e, in, acc, out.dtype(), ksizes.size(), rsizes.size(), *dev.runtime); }, op.data());
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
