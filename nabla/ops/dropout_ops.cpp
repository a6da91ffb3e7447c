// dropout: a table entry (not a composite) flagged kRandom, so a graph runs
// its kernel, and draws a fresh mask, on every run instead of baking in the
// mask seen while tracing. Outputs: the result and the bool keep-mask, which
// the gradient rule reuses (the mask is not differentiable).
#include "nabla/core/random.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

void check_p(double p) {
  NABLA_CHECK(p >= 0.0 && p <= 1.0, "dropout: p must be in [0, 1] (the probability of zeroing an element), got ", p);
}

// attrs: p
OutputMetas infer_dropout(const OpDef& op, Inputs in, const Attrs& a) {
  check_p(a.f(0));
  NABLA_CHECK(is_floating(in[0].dtype()), op.name, ": expected a floating point input, got ", in[0].dtype());
  return {{in[0].sizes(), in[0].dtype()}, {in[0].sizes(), kBool}};
}

TensorList dropout_grad(GradCtx& c) {
  double p = c.attrs().f(0);
  double scale = p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  const Tensor& g = c.grad(0);
  return {g * c.output(1).to(g.dtype()) * scale};
}

}  // namespace

extern constinit const OpDef dropout_op{.name = "dropout", .attr_names = "p", .infer = infer_dropout,
                                        .grad = dropout_grad,
                                        .flags = kSaveOutputs | kRandom, .save_inputs = 0,
                                        .num_differentiable_outputs = 1};

namespace {
detail::RegisterOps register_dropout{&dropout_op};
}

Tensor dropout(const Tensor& x, double p, bool training) {
  check_p(p);
  if (!training) return x;  // like PyTorch: the input itself, no copy
  return call1(dropout_op, {x}, {p});
}

}  // namespace nabla
