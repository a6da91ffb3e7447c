// CS231n lecture 8 (2017), "TensorFlow: Neural Net" with variables and grouped assign updates.
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;

int main() {
  const int64_t N = 64, D = 1000, H = 100, D_out = 10;

  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D_out}, "y");
  Tensor w1 = g.variable(randn({D, H}), "w1");
  Tensor w2 = g.variable(randn({H, D_out}), "w2");

  Tensor h = maximum(matmul(x, w1), 0.0);
  Tensor y_pred = matmul(h, w2);
  Tensor diff = y_pred - y;
  Tensor loss = mean(sum(pow(diff, 2), {1}));  // tf.reduce_mean(tf.reduce_sum(diff ** 2, axis=1))

  std::vector<Tensor> grads = graph::gradients(loss, {w1, w2});
  Tensor grad_w1 = grads[0], grad_w2 = grads[1];

  const double learning_rate = 1e-5;
  Tensor new_w1 = graph::assign(w1, w1 - learning_rate * grad_w1);
  Tensor new_w2 = graph::assign(w2, w2 - learning_rate * grad_w2);
  Tensor updates = graph::group({new_w1, new_w2});

  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor xv = randn({N, D}), yv = randn({N, D_out});

  double first_loss = 0, last_loss = 0;
  for (int t = 0; t < 50; ++t) {
    std::vector<Tensor> out = sess.run({loss, updates}, {{x, xv}, {y, yv}});
    double l = out[0].item<float>();
    if (t == 0) first_loss = l;
    last_loss = l;
    if (t % 10 == 0) std::cout << "step " << t << " loss " << l << "\n";
  }
  std::cout << "first loss " << first_loss << " last loss " << last_loss << "\n";
  return last_loss < first_loss ? 0 : 1;
}
