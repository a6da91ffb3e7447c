// embedding (row lookup by integer indices) and embedding_backward (the dense
// gradient w.r.t. the weight: rows accumulated, padding_idx skipped). Each is
// the other's adjoint, so the gradient rules just call each other.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {

extern const OpDef embedding_op, embedding_backward_op;

namespace {

void check_indices(const Tensor& indices, const char* op) {
  NABLA_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, op,
              ": expected indices of dtype int64 or int32, got ", indices.dtype());
}

void check_padding_idx(int64_t padding_idx, int64_t rows, const char* op) {
  NABLA_CHECK(padding_idx == -1 || (padding_idx >= 0 && padding_idx < rows), op, ": padding_idx ", padding_idx,
              " is out of range for a weight of ", rows, " rows; expected -1 (none) or a row in [0, ", rows, ")");
}

// inputs: indices, weight; attrs: padding_idx
OutputMetas infer_embedding(const OpDef& op, Inputs in, const Attrs& a) {
  const Tensor &indices = in[0], &weight = in[1];
  check_indices(indices, "embedding");
  NABLA_CHECK(weight.dim() == 2, op.name, ": expected a 2-D weight [num_embeddings, embedding_dim], got shape ",
              weight.sizes());
  check_padding_idx(a.i(0), weight.sizes()[0], "embedding");
  Shape s = indices.sizes();
  s.push_back(weight.sizes()[1]);
  return {{s, weight.dtype()}};
}

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx) {
  return call1(embedding_backward_op, {grad, indices}, {num_weights, padding_idx});
}

// inputs: grad [*indices.shape, D], indices; attrs: num_weights, padding_idx
OutputMetas infer_embedding_backward(const OpDef& op, Inputs in, const Attrs& a) {
  const Tensor &grad = in[0], &indices = in[1];
  check_indices(indices, "embedding_backward");
  Shape expected = indices.sizes();
  NABLA_CHECK(grad.dim() == indices.dim() + 1 && Shape(grad.sizes().begin(), grad.sizes().end() - 1) == expected,
              op.name, ": grad has shape ", grad.sizes(), ", expected indices' shape ", expected,
              " plus the embedding dim");
  check_padding_idx(a.i(1), a.i(0), "embedding_backward");
  return {{Shape{a.i(0), grad.sizes().back()}, grad.dtype()}};
}

}  // namespace

extern constinit const OpDef embedding_op{
    .name = "embedding", .num_inputs = 2, .attr_names = "padding_idx", .infer = infer_embedding,
    .grad = [](GradCtx& c) -> TensorList {
      return {Tensor(), embedding_backward(c.grad(), c.input(0), c.input_sizes(1)[0], c.attrs().i(0))};
    },
    .flags = kNativeReducedFloat,  // a row copy: any dtype as is
    .save_inputs = 0b01};

extern constinit const OpDef embedding_backward_op{
    .name = "embedding_backward", .num_inputs = 2, .attr_names = "num_weights,padding_idx",
    .infer = infer_embedding_backward,
    // Linear in grad: its adjoint is the lookup, with padding rows zeroed.
    .grad = [](GradCtx& c) -> TensorList {
      Tensor indices = c.input(1);
      int64_t padding_idx = c.attrs().i(1);
      Tensor gg = embedding(indices, c.grad(), -1);
      if (padding_idx >= 0) gg = gg * unsqueeze(indices != padding_idx, -1).to(gg.dtype());
      return {gg, Tensor()};
    },
    .save_inputs = 0b10};

namespace {
detail::RegisterOps register_embedding{&embedding_op, &embedding_backward_op};
}

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx) {
  return call1(embedding_op, {indices, weight}, {padding_idx});
}

}  // namespace nabla
