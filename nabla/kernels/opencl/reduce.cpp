#include "nabla/kernels/opencl/reduce.h"

#include <vector>

#include "nabla/kernels/device/elementwise_exprs.h"
#include "nabla/kernels/device/elementwise_source.h"
#include "nabla/kernels/opencl/launch.h"
#include "nabla/kernels/opencl/program_cache.h"
#include "nabla/kernels/opencl/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla::opencl {
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

// The kernel (device/elementwise_source.h, shared with the CUDA backend)
// with the OpenCL prelude and A = the accumulator.
std::string render(const device_c::ReduceExpr& e, DType in, DType acc, DType out, std::size_t keep_rank,
                   std::size_t red_rank) {
  return device_c_source({{"A", acc}},
                         device_c::reduce_kernel_body(e, in, is_floating(acc), out, keep_rank, red_rank));
}

void run_reduce(const device_c::ReduceExpr& e, Inputs inputs, const Attrs& attrs, Tensor& out) {
  const std::string_view op = e.op->name;
  const Tensor& x = inputs[0];
  const int index = out.device().index;
  DeviceContext& dev = device(index, op.data());
  const DType in = x.dtype();
  check_dtype(op.data(), in, dev);
  check_dtype(op.data(), out.dtype(), dev);
  NABLA_CHECK(out.is_contiguous(), op, ": the OpenCL reduction writes a contiguous output");
  const DType acc = is_floating(in) ? (dev.fp64 ? kFloat64 : kFloat32) : kInt64;
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
  auto compiled = get_kernel(index, key, "nb_reduce",
                             [&] { return render(e, in, acc, out.dtype(), ksizes.size(), rsizes.size()); });
  std::lock_guard lock(compiled->mu);
  cl_kernel k = compiled->kernel;
  cl_uint arg = 0;
  auto set = [&](std::size_t size, const void* v) { check(clSetKernelArg(k, arg++, size, v), "clSetKernelArg"); };
  auto set_long = [&](int64_t v) {
    const cl_long l = v;
    set(sizeof l, &l);
  };
  cl_mem out_mem = mem_of(out), in_mem = mem_of(x);
  set(sizeof out_mem, &out_mem);
  set_long(out.impl()->offset);
  set(sizeof in_mem, &in_mem);
  set_long(p->offset);
  set_long(n_out);
  set_long(n_red);
  for (std::size_t d = 0; d < ksizes.size(); ++d) set_long(ksizes[d]), set_long(kstrides[d]);
  for (std::size_t d = 0; d < rsizes.size(); ++d) set_long(rsizes[d]), set_long(rstrides[d]);
  const std::size_t global = static_cast<std::size_t>(n_out);
  check(clEnqueueNDRangeKernel(dev.queue(0), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel", std::string(op).c_str());
}

// Every row's op runs through this one kernel, which is told its op.
void reduce_kernel(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  for (const device_c::ReduceExpr& row : device_c::reduce_exprs())
    if (row.op == &op) return run_reduce(row, inputs, attrs, outputs[0]);
  fail(op.name, ": no OpenCL reduction is generated for this op");
}

}  // namespace

void register_reduce_kernels() {
  for (const device_c::ReduceExpr& row : device_c::reduce_exprs())
    register_boxed_kernel(*row.op, DeviceType::OpenCL, reduce_kernel);
}

}  // namespace nabla::opencl
