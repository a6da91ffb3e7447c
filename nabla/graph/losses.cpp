// tf.losses in terms of nabla's loss ops, with TensorFlow's argument order
// checked up front so errors name the TensorFlow-style API.
#include "nabla/graph/losses.h"

#include "nabla/ops/ops.h"

namespace nabla::graph::losses {

Tensor mean_squared_error(const Tensor& labels, const Tensor& predictions) {
  NABLA_CHECK(labels.defined() && predictions.defined(), "graph::losses::mean_squared_error: undefined tensor");
  NABLA_CHECK(labels.sizes() == predictions.sizes(), "graph::losses::mean_squared_error: labels have shape ",
              labels.sizes(), " but predictions have shape ", predictions.sizes(), "; expected the same shape");
  return mse_loss(predictions, labels);
}

Tensor softmax_cross_entropy(const Tensor& onehot_labels, const Tensor& logits) {
  NABLA_CHECK(onehot_labels.defined() && logits.defined(), "graph::losses::softmax_cross_entropy: undefined tensor");
  NABLA_CHECK(logits.dim() == 2 && onehot_labels.sizes() == logits.sizes(),
              "graph::losses::softmax_cross_entropy: expected logits [N, C] and onehot_labels of the same shape, got ",
              logits.sizes(), " and ", onehot_labels.sizes());
  NABLA_CHECK(is_floating(onehot_labels.dtype()), "graph::losses::softmax_cross_entropy: onehot_labels have dtype ",
              onehot_labels.dtype(), "; expected a floating-point dtype (class probabilities)");
  return cross_entropy(logits, onehot_labels);
}

Tensor sparse_softmax_cross_entropy(const Tensor& labels, const Tensor& logits) {
  NABLA_CHECK(labels.defined() && logits.defined(), "graph::losses::sparse_softmax_cross_entropy: undefined tensor");
  NABLA_CHECK(logits.dim() == 2 && labels.dim() == 1 && labels.size(0) == logits.size(0),
              "graph::losses::sparse_softmax_cross_entropy: expected logits [N, C] and labels [N], got ",
              logits.sizes(), " and ", labels.sizes());
  NABLA_CHECK(!is_floating(labels.dtype()) && labels.dtype() != kBool,
              "graph::losses::sparse_softmax_cross_entropy: labels have dtype ", labels.dtype(),
              "; expected integer class indices");
  return cross_entropy(logits, labels);
}

}  // namespace nabla::graph::losses
