// CS231n lecture 8 (2017), "TensorFlow: Optimizer" + "TensorFlow: Layers" + "Loss".
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;

int main() {
  const int64_t N = 64, D = 1000, H = 100, D_out = 10;

  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D_out}, "y");

  auto init = graph::init::xavier_uniform;  // tf.contrib.layers.xavier_initializer()
  Tensor h = graph::layers::dense(x, H, nabla::relu, init);
  Tensor y_pred = graph::layers::dense(h, D_out, {}, init);
  Tensor loss = graph::losses::mean_squared_error(y_pred, y);

  // The lecture uses 1e0 with D = 1000 outputs; with D_out = 10 the mean over
  // 10x fewer elements makes the gradients ~100x larger, so a smaller rate.
  graph::GradientDescentOptimizer optimizer(5e-2);
  Tensor updates = optimizer.minimize(loss);

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
