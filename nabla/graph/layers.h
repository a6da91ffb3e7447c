// Layer helpers for graphs (tf.layers): dense() makes its variables, drawn by
// initializers, under a fresh name scope ("dense/kernel", then "dense_1/...")
// and applies them to a symbolic input. See docs/graph.md, "Layers and losses".
#pragma once
#include <cstdint>
#include <functional>
#include <source_location>
#include <string>

#include "nabla/graph/graph.h"

namespace nabla::graph::layers {

// An activation over tensors: nabla::relu, nabla::tanh, a lambda; empty = none (linear).
using Activation = std::function<Tensor(const Tensor&)>;
// Makes an initializer for a variable of the given shape and dtype:
// init::glorot_uniform, init::zeros, or a lambda fixing other parameters
// ([](IntList s, DType d) { return init::random_normal(s, 0.0, 0.01, d); }).
using InitializerFn = std::function<Initializer(IntList shape, DType dtype)>;

// y = activation(x kernel + bias), TensorFlow's tf.layers.dense: kernel
// [in, units] (in = x's last dim; TensorFlow's layout, the transpose of
// nn::Linear's weight), bias [units]; both variables have x's dtype and are
// made in a new name scope `name` (made unique: "dense", "dense_1", ...) that
// also holds the layer's ops. x: a symbolic tensor of at least 1 dim, floating.
Tensor dense(const Tensor& x, int64_t units, Activation activation = {},
             InitializerFn kernel_initializer = init::glorot_uniform, InitializerFn bias_initializer = init::zeros,
             bool use_bias = true, const std::string& name = "dense",
             std::source_location loc = std::source_location::current());

}  // namespace nabla::graph::layers
