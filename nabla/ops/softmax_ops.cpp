// softmax and log_softmax: table entries with a fused CPU kernel
// (kernels/cpu/softmax.cpp). Their gradient rules read only the output and are
// written in nabla ops, so they can be differentiated again.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// attrs: dim (normalized by the wrapper; 0 for a 0-dim input)
OutputMetas infer_softmax(const OpDef& op, Inputs in, const Attrs& a) {
  NABLA_CHECK(is_floating(in[0].dtype()), op.name, ": expected a floating point input, got ", in[0].dtype());
  wrap_dim(a.i(0), in[0].dim(), op.name);
  return {{in[0].sizes(), in[0].dtype()}};
}

}  // namespace

extern constinit const OpDef softmax_op{
    .name = "softmax", .attr_names = "dim", .infer = infer_softmax,
    // dx = y * (g - sum(g * y, dim))
    .grad = [](GradCtx& c) -> TensorList {
      Tensor y = c.output(0);
      int64_t d = c.attrs().i(0);
      Tensor gy = c.grad() * y;
      return {gy - y * sum(gy, {d}, true)};
    },
    .flags = kSaveOutputs, .promote = Promote::CommonFloat, .save_inputs = 0};

extern constinit const OpDef log_softmax_op{
    .name = "log_softmax", .attr_names = "dim", .infer = infer_softmax,
    // dx = g - exp(y) * sum(g, dim)
    .grad = [](GradCtx& c) -> TensorList {
      Tensor y = c.output(0);
      int64_t d = c.attrs().i(0);
      return {c.grad() - exp(y) * sum(c.grad(), {d}, true)};
    },
    .flags = kSaveOutputs, .promote = Promote::CommonFloat, .save_inputs = 0};

namespace {
detail::RegisterOps register_softmax{&softmax_op, &log_softmax_op};
}

Tensor softmax(const Tensor& x, int64_t dim) {
  NABLA_CHECK(x.defined(), "softmax: input 0 is an undefined tensor");
  return call1(softmax_op, {x}, {wrap_dim(dim, x.dim(), "softmax")});
}
Tensor log_softmax(const Tensor& x, int64_t dim) {
  NABLA_CHECK(x.defined(), "log_softmax: input 0 is an undefined tensor");
  return call1(log_softmax_op, {x}, {wrap_dim(dim, x.dim(), "log_softmax")});
}

}  // namespace nabla
