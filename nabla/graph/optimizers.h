// Graph-mode optimizers (TensorFlow 1's tf.train.*Optimizer): apply_gradients
// adds, for each {gradient, variable}, the update written with nabla ops and
// assign, and returns one no-value node that runs them all; sess.run(train_op)
// takes one step. State (Adam's moments, momentum) lives in non-trainable
// "slot" variables named "<variable>/<Optimizer>" ("w1/Adam", "w1/Adam_1"),
// initialized by a global_variables_initializer created after them.
// The update rules are nabla::optim's (PyTorch's), so a graph step equals an
// eager optim step. See docs/graph.md, "Training in graph mode".
#pragma once
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph {

// {gradient, variable} pairs; an undefined gradient means "no gradient" and is skipped.
using GradsAndVars = std::vector<std::pair<Tensor, Tensor>>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // {d loss / d var, var} for each var of `var_list` (default: every trainable
  // variable of loss's graph), by graph::gradients; a var the loss does not
  // depend on gets an undefined gradient (TensorFlow's None). A non-scalar
  // loss is summed, as tf.gradients does.
  GradsAndVars compute_gradients(const Tensor& loss, const std::vector<Tensor>& var_list = {},
                                 std::source_location loc = std::source_location::current());
  // apply_gradients(compute_gradients(loss, var_list)): the training step.
  Tensor minimize(const Tensor& loss, const std::vector<Tensor>& var_list = {},
                  std::source_location loc = std::source_location::current());

  // The update of every variable with a gradient: a no-value node (named after
  // the optimizer, "GradientDescent", "Adam") to run once per step. Gradients
  // may be symbolic or concrete, of the variable's shape and dtype.
  Tensor apply_gradients(const GradsAndVars& grads_and_vars,
                         std::source_location loc = std::source_location::current());

  const std::string& name() const { return name_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  // Once per apply_gradients, before the updates: shared slots (Adam's beta powers).
  virtual void prepare(Graph&, const GradsAndVars&, std::source_location) {}
  // The update of one variable; returns the node(s) that perform it.
  virtual Tensor apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) = 0;
  // Once, after every variable's update: work that must follow them (Adam's
  // beta powers); returned nodes run after all of `updates` (control inputs).
  virtual std::vector<Tensor> finish(Graph&, std::source_location) { return {}; }
  // A zero-initialized, non-trainable variable shaped like `var`, named
  // "<var's name>/<name()>" (then "_1", ... when taken, as TensorFlow).
  Tensor zeros_slot(Graph& g, const Tensor& var, std::source_location loc);
  // A non-trainable variable named `name` outside every name scope.
  Tensor global_variable(Graph& g, const Initializer& init, const std::string& name, std::source_location loc);

 private:
  std::string name_;
};

// var -= learning_rate * grad (nabla::optim::SGD without momentum; tf.train.GradientDescentOptimizer).
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate);

 protected:
  Tensor apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) override;

 private:
  double lr_;
};

// accum = momentum * accum + grad; var -= lr * accum, or with use_nesterov
// var -= lr * (grad + momentum * accum): tf.train.MomentumOptimizer, which is
// nabla::optim::SGD with momentum and dampening 0. Slot "<var>/Momentum".
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false);

 protected:
  Tensor apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) override;

 private:
  double lr_, momentum_;
  bool nesterov_;
};

// RMSProp with TensorFlow's argument names and defaults but nabla::optim::
// RMSprop's (PyTorch's) rule, so it equals the eager optimizer with
// alpha = decay:
//   ms = decay ms + (1 - decay) g^2    (centered: mg = decay mg + (1 - decay) g,
//                                        ms - mg^2 under the root)
//   d = g / (sqrt(ms) + eps);  momentum > 0: mom = momentum mom + d, d = mom;  var -= lr d
// TensorFlow 1 differs: ms starts at 1 (here 0, as PyTorch), epsilon is added
// inside the root (sqrt(ms + eps)), and lr enters mom before the sum (the same
// while lr is constant). Slots "<var>/RMSProp" (ms), then "<var>/RMSProp_1"
// (momentum, if > 0) and the next one (mg, if centered).
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0,
                            double epsilon = 1e-10, bool centered = false);

 protected:
  Tensor apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) override;

 private:
  double lr_, decay_, momentum_, eps_;
  bool centered_;
};

// Adam with PyTorch's (nabla::optim::Adam's) epsilon placement:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   var -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// TensorFlow 1 adds eps to sqrt(v) before the bias correction
// (var -= lr sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)), i.e. its eps
// is PyTorch's eps * sqrt(1 - b2^t); the two agree when eps is negligible.
// Slots "<var>/Adam" (m) and "<var>/Adam_1" (v); b1^t and b2^t are the
// non-trainable scalars "beta1_power" and "beta2_power" (TensorFlow's names),
// multiplied by b1 and b2 after every step.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 1e-3, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8);

 protected:
  void prepare(Graph& g, const GradsAndVars& gv, std::source_location loc) override;
  Tensor apply_dense(Graph& g, const Tensor& grad, const Tensor& var, std::source_location loc) override;
  std::vector<Tensor> finish(Graph& g, std::source_location loc) override;

 private:
  double lr_, beta1_, beta2_, eps_;
  Tensor beta1_power_, beta2_power_;  // of the apply_gradients being built
};

}  // namespace nabla::graph
