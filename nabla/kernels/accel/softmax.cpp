// Accelerator kernels (OpenCL, CUDA) of softmax and log_softmax (kernels/device/softmax.h).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/kernels/device/softmax.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/accel/row_geometry.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef softmax_op, log_softmax_op;  // ops/softmax_ops.cpp

namespace accel {
namespace {

// Attrs: dim (normalized; 0 for a 0-dim input). One program per dtype.
void softmax_kernel(const OpDef& op, Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* name = op.name.data();
  const DeviceRef dev = device_ref(out[0].device(), name);
  const DType t = in[0].dtype();
  check_dtype(name, t, dev);
  if (in[0].numel() == 0) return;
  NABLA_CHECK(out[0].is_contiguous(), name, ": the OpenCL kernel writes a contiguous output");
  const Tensor x = dense(in[0]);
  const RowGeometry r(x, a.i(0));
  Launch k(
      dev, "softmax|" + std::string(dtype_name(t)), "nb_softmax",
      [&] {
        return program({{"T", t}}, device_c::softmax_source());
      },
      name);
  k.arg(out[0]).arg(x).arg(r.lines()).arg(r.n).arg(r.inner);
  k.arg_as(kInt32, &op == &log_softmax_op ? 1 : 0).run(static_cast<std::size_t>(r.lines()));
}

}  // namespace

void register_softmax_kernels(DeviceType type) {
  for (const OpDef* op : {&softmax_op, &log_softmax_op}) register_boxed_kernel(*op, type, softmax_kernel);
}

}  // namespace accel
}  // namespace nabla
