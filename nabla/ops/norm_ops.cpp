// layer_norm and group_norm: composites of reductions and
// elementwise ops, so autograd (and double backward) flows through the ops
// they call and no gradient rule has to be kept in sync by hand. Each checks
// its arguments first, naming the op, what was given and what was expected.
// batch_norm, which has CPU kernels of its own, is in batch_norm_ops.cpp.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// Shape [1, C, 1, ...] that broadcasts a per-channel vector against input [N, C, *].
Shape channel_shape(const Tensor& input) {
  Shape s(static_cast<std::size_t>(input.dim()), 1);
  s[1] = input.sizes()[1];
  return s;
}

void check_channel_vector(const Tensor& t, const char* what, const Tensor& input, const char* op) {
  if (!t.defined()) return;
  int64_t c = input.sizes()[1];
  NABLA_CHECK(t.dim() == 1 && t.sizes()[0] == c, op, ": ", what, " has shape ", t.sizes(), ", expected [", c,
              "] (one value per channel of input of shape ", input.sizes(), ")");
}

// y * weight + bias, each optional, weight/bias reshaped to `shape`.
Tensor affine(Tensor y, const Tensor& weight, const Tensor& bias, const Shape& shape) {
  if (weight.defined()) y = y * reshape(weight, shape);
  if (bias.defined()) y = y + reshape(bias, shape);
  return y;
}

Tensor normalize(const Tensor& x, const Tensor& mean, const Tensor& var, double eps) {
  return (x - mean) * rsqrt(var + eps);
}

// inputs: input, weight, bias; attrs: normalized_shape, eps
TensorList layer_norm_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor &weight = in[1], &bias = in[2];
  const Shape& ns = a.ints(0);
  double eps = a.f(1);
  int64_t k = static_cast<int64_t>(ns.size());
  NABLA_CHECK(k > 0, "layer_norm: normalized_shape is empty; expected the sizes of 1 or more trailing dims of input "
              "of shape ", x.sizes());
  bool match = x.dim() >= k;
  for (int64_t i = 0; match && i < k; ++i) match = x.sizes()[x.dim() - k + i] == ns[i];
  NABLA_CHECK(match, "layer_norm: normalized_shape ", ns, " does not match the trailing dims of input of shape ",
              x.sizes(), "; expected input of shape [*, ", detail::concat(ns).substr(1));
  NABLA_CHECK(is_floating(x.dtype()), "layer_norm: expected a floating point input, got ", x.dtype());
  for (const auto& [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    NABLA_CHECK(!t->defined() || t->sizes() == ns, "layer_norm: ", what, " has shape ", t->sizes(),
                ", expected normalized_shape ", ns);
  Shape dims;
  for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
  Tensor y = normalize(x, mean(x, dims, true), var(x, dims, /*unbiased=*/false, true), eps);
  return {affine(y, weight, bias, ns)};
}

// inputs: input, weight, bias; attrs: num_groups, eps
TensorList group_norm_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor &weight = in[1], &bias = in[2];
  int64_t groups = a.i(0);
  double eps = a.f(1);
  NABLA_CHECK(x.dim() >= 2, "group_norm: expected input of shape [N, C, *] (2 or more dims), got shape ", x.sizes());
  NABLA_CHECK(is_floating(x.dtype()), "group_norm: expected a floating point input, got ", x.dtype());
  int64_t c = x.sizes()[1];
  NABLA_CHECK(groups > 0 && c % groups == 0, "group_norm: num_groups ", groups,
              " must be positive and divide the number of channels ", c, " (input of shape ", x.sizes(), ")");
  check_channel_vector(weight, "weight", x, "group_norm");
  check_channel_vector(bias, "bias", x, "group_norm");
  int64_t per_group = c / groups;
  for (int64_t d = 2; d < x.dim(); ++d) per_group *= x.sizes()[d];
  Tensor g = reshape(x, {x.sizes()[0], groups, per_group});
  Tensor y = normalize(g, mean(g, {2}, true), var(g, {2}, /*unbiased=*/false, true), eps);
  return {affine(reshape(y, x.sizes()), weight, bias, channel_shape(x))};
}

}  // namespace

extern constinit const OpDef layer_norm_op{.name = "layer_norm", .num_inputs = 3, .attr_names = "normalized_shape,eps",
                                           .composite = layer_norm_composite};
extern constinit const OpDef group_norm_op{.name = "group_norm", .num_inputs = 3, .attr_names = "num_groups,eps",
                                           .composite = group_norm_composite};

namespace {
detail::RegisterOps register_norm{&layer_norm_op, &group_norm_op};
}

Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return call1(layer_norm_op, {input, weight, bias}, {normalized_shape.shape(), eps});
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  return call1(group_norm_op, {input, weight, bias}, {num_groups, eps});
}

}  // namespace nabla
