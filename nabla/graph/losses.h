// Losses with TensorFlow's names and argument order (tf.losses: labels first),
// written with nabla ops, so they build graph nodes on symbolic tensors and
// compute at once on concrete ones. Default reduction: the mean, as tf.losses
// with weights = 1. See docs/graph.md, "Layers and losses".
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::graph::losses {

// mean((predictions - labels)^2) over all elements; same shapes and dtypes.
Tensor mean_squared_error(const Tensor& labels, const Tensor& predictions);
// Mean over the batch of -sum_c onehot_labels[n, c] * log_softmax(logits)[n, c];
// logits [N, C], onehot_labels (or any class probabilities) of the same shape.
Tensor softmax_cross_entropy(const Tensor& onehot_labels, const Tensor& logits);
// Mean over the batch of -log_softmax(logits)[n, labels[n]]; labels: integer class indices [N].
Tensor sparse_softmax_cross_entropy(const Tensor& labels, const Tensor& logits);

}  // namespace nabla::graph::losses
