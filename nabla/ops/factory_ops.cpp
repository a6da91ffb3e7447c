// The factory ops: tensors made from nothing but their attributes (a shape, a
// value, a range). They have no inputs, so the `device` attr says where the
// output lives (OpDef::device_attr) and each device fills its own memory: a
// factory never writes host memory for a tensor on another device. The public
// functions (zeros, ones, full, arange, linspace, eye and the *_like forms)
// are in factory.cpp; the CPU kernels in kernels/cpu/factory.cpp.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// Attrs: size, value, dtype, device. The sizes are checked where the output
// is made (make_empty names the op).
OutputMetas infer_full(const OpDef&, Inputs, const Attrs& a) {
  return {{a.ints(0), a.dtype(2)}};
}

// Attrs: start, step, size (the element count), dtype, device.
OutputMetas infer_arange(const OpDef& op, Inputs, const Attrs& a) {
  NABLA_CHECK(a.i(2) >= 0, op.name, ": the element count must be >= 0, got ", a.i(2));
  return {{Shape{a.i(2)}, a.dtype(3)}};
}

// Attrs: start, end, steps, dtype, device.
OutputMetas infer_linspace(const OpDef& op, Inputs, const Attrs& a) {
  NABLA_CHECK(a.i(2) >= 0, op.name, ": steps must be >= 0, got ", a.i(2));
  return {{Shape{a.i(2)}, a.dtype(3)}};
}

// Attrs: n (rows), m (columns), dtype, device.
OutputMetas infer_eye(const OpDef& op, Inputs, const Attrs& a) {
  NABLA_CHECK(a.i(0) >= 0, op.name, ": n must be >= 0, got ", a.i(0));
  NABLA_CHECK(a.i(1) >= 0, op.name, ": m must be >= 0, got ", a.i(1));
  return {{Shape{a.i(0), a.i(1)}, a.dtype(2)}};
}

}  // namespace

// kNativeReducedFloat: the kernels write float16/bfloat16 themselves (a
// value, not arithmetic), as the factories always did.
extern constinit const OpDef full_op{.name = "full", .num_inputs = 0, .attr_names = "size,value,dtype,device",
                           .infer = infer_full, .flags = kNonDifferentiable | kNativeReducedFloat,
                           .device_attr = 3};
extern constinit const OpDef arange_op{.name = "arange", .num_inputs = 0, .attr_names = "start,step,size,dtype,device",
                             .infer = infer_arange, .flags = kNonDifferentiable | kNativeReducedFloat,
                             .device_attr = 4};
extern constinit const OpDef linspace_op{.name = "linspace", .num_inputs = 0, .attr_names = "start,end,steps,dtype,device",
                               .infer = infer_linspace, .flags = kNonDifferentiable | kNativeReducedFloat,
                               .device_attr = 4};
extern constinit const OpDef eye_op{.name = "eye", .num_inputs = 0, .attr_names = "n,m,dtype,device", .infer = infer_eye,
                          .flags = kNonDifferentiable | kNativeReducedFloat, .device_attr = 3};

namespace {
detail::RegisterOps register_factory_ops{&full_op, &arange_op, &linspace_op, &eye_op};
}

}  // namespace nabla
