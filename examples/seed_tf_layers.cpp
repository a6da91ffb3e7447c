// The lecture's "TensorFlow: layers" seed in C++ with nabla's static graphs:
// placeholders for x and y, two dense layers with Xavier (Glorot uniform)
// initialization and a ReLU between them, mean_squared_error, and an
// optimizer's minimize(loss) as the update node; then the same with Adam.
//
//   x = tf.placeholder(tf.float32, shape=(N, D)); y = tf.placeholder(...)
//   h = tf.layers.dense(x, H, activation=tf.nn.relu, kernel_initializer=xavier)
//   y_pred = tf.layers.dense(h, D, kernel_initializer=xavier)
//   loss = tf.losses.mean_squared_error(y_pred, y)
//   updates = tf.train.GradientDescentOptimizer(1e-5).minimize(loss)
//   sess.run(tf.global_variables_initializer())
//   for t in range(50): loss_val, _ = sess.run([loss, updates], feed_dict=...)
//
// Usage: seed_tf_layers [steps=50] [gd_lr=1e-5] [adam_lr=1e-3]. Prints the
// loss every 10 steps and, for each optimizer, a line
// "<name> first_loss=... final_loss=... falls=<steps whose loss fell>/<steps - 1>".
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nabla/nabla.h"

namespace {

using namespace nabla;

// Builds the model in a fresh graph, trains it `steps` times with `opt` and
// prints the losses.
void train_with(const std::string& name, graph::Optimizer& opt, int steps, const Tensor& x_value, const Tensor& y_value) {
  const int64_t N = x_value.size(0), D = x_value.size(1), H = 100;
  graph::Graph g;
  graph::LocationScope at;  // op nodes record this line for run-time errors
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D}, "y");
  Tensor h = graph::layers::dense(x, H, nabla::relu, graph::init::xavier_uniform);
  Tensor y_pred = graph::layers::dense(h, D, {}, graph::init::xavier_uniform);
  // Labels first, as TensorFlow's mean_squared_error(labels, predictions) and
  // docs/graph.md have it (the lecture passes y_pred first; the mean of
  // squared differences is the same either way).
  Tensor loss = graph::losses::mean_squared_error(y, y_pred);
  Tensor updates = opt.minimize(loss);

  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  double first = 0, last = 0, previous = 0;
  int falls = 0;
  for (int t = 0; t < steps; ++t) {
    double loss_value = sess.run({loss, updates}, {{x, x_value}, {y, y_value}})[0].item<double>();
    if (t == 0) first = loss_value;
    if (t > 0 && loss_value < previous) ++falls;
    previous = last = loss_value;
    if (t % 10 == 0 || t == steps - 1) std::printf("%s step %3d  loss %.8g\n", name.c_str(), t, loss_value);
  }
  std::printf("%s first_loss=%.8g final_loss=%.8g falls=%d/%d\n", name.c_str(), first, last, falls, steps - 1);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  double gd_lr = argc > 2 ? std::atof(argv[2]) : 1e-5;
  double adam_lr = argc > 3 ? std::atof(argv[3]) : 1e-3;
  const int64_t N = 64, D = 1000;
  manual_seed(0);
  Tensor x_value = randn({N, D});
  Tensor y_value = randn({N, D});
  graph::GradientDescentOptimizer gd(gd_lr);
  train_with("gd", gd, steps, x_value, y_value);
  graph::AdamOptimizer adam(adam_lr);
  train_with("adam", adam, steps, x_value, y_value);
  return 0;
}
